import SubLedgerCore

/// A transaction as read back from the Paddle API, with the adjustments made to it since: what the ledger applies
/// (an event's copy is a hint, read back before it is believed).
public struct PaddleTransactionReading: Sendable, Hashable {
    public var transaction: PaddleTransaction
    /// Its adjustments (`GET /adjustments?transaction_id=…`); others are ignored.
    public var adjustments: [PaddleAdjustment]

    public init(transaction: PaddleTransaction, adjustments: [PaddleAdjustment] = []) {
        self.transaction = transaction
        self.adjustments = adjustments
    }

    /// The `custom_data` key SubLedger writes the order into when it starts a checkout: the account hint.
    public static let orderCustomDataKey = "subledger_order"
    /// The `custom_data` key naming the app (its bundle id) the purchase was made for.
    public static let appCustomDataKey = "subledger_app"

    /// What the transaction means to the ledger, or `nil` while it is not paid (`paid` or `completed`).
    ///
    /// - The sale is the transaction (`txn_…`), of its first item's product, made when it was billed (its creation
    ///   when Paddle states no billing time); a subscription's transaction grants its `billing_period`, a one-time
    ///   purchase's grants no period.
    /// - The money is Paddle's `details.totals` in milli-units of the transaction's currency: the price is the
    ///   `total` (tax included, as the customer paid it), with the `tax` Paddle charged as merchant of record, its
    ///   `fee` and the seller's `earnings`; `details.payout_totals` states the same in the payout currency.
    /// - A refund or a chargeback that Paddle approved takes money back: when what was taken back (less chargebacks
    ///   reversed) reaches the total, the sale is revoked at the latest of them; less, and each is a partial refund
    ///   that leaves the period granted. Credits go to the customer's Paddle balance, not back to them, and are not
    ///   counted; an adjustment pending approval or rejected takes nothing back. Each states the part of Paddle's
    ///   fee it gave back (`fee` less `retained_fee`) and the earnings it took back in the payout currency; once
    ///   revoked, the sale states their sums (`refundedFee`, `payout.refundedEarnings`).
    /// - `custom_data`'s `subledger_order` is the account hint, `subledger_app` the app.
    public func sale() throws(PaddleMappingError) -> PaddleSale? {
        let transaction = transaction
        guard transaction.status.isPaid else { return nil }
        let currency = transaction.currencyCode
        guard let item = transaction.items.first else { throw PaddleMappingError(.missingField, "items") }
        guard IdentifierRule.productID.accepts(item.price.productID) else {
            throw PaddleMappingError(.invalidField, "items[0].price.product_id")
        }
        guard let totals = transaction.details?.totals else {
            throw PaddleMappingError(.missingField, "details.totals")
        }
        guard totals.currencyCode == currency else {
            throw PaddleMappingError(.invalidField, "details.totals.currency_code")
        }
        guard totals.tax <= totals.total else { throw PaddleMappingError(.invalidField, "details.totals.tax") }
        if let fee = totals.fee, fee > totals.total { throw PaddleMappingError(.invalidField, "details.totals.fee") }
        if let earnings = totals.earnings, earnings > totals.total {
            throw PaddleMappingError(.invalidField, "details.totals.earnings")
        }
        if transaction.subscriptionID != nil, transaction.billingPeriod == nil {
            throw PaddleMappingError(.missingField, "billing_period")
        }
        let isTrial =
            totals.total == 0 && transaction.origin != .subscriptionRecurring
            && transaction.items.contains { $0.price.trialPeriod != nil }
        let payoutCurrency = transaction.details?.payoutTotals?.currencyCode
        let takenBack = try Self.takenBack(
            transaction: transaction, adjustments: adjustments, payoutCurrency: payoutCurrency)
        let revoked = totals.total > 0 && takenBack.amount >= totals.total
        var payout = try transaction.details?.payoutTotals.map { payout throws(PaddleMappingError) in
            try Self.payout(payout)
        }
        if revoked, payout != nil, takenBack.refunds.allSatisfy({ $0.payoutEarnings != nil }) {
            payout?.refundedEarnings = try Self.sum(
                takenBack.refunds.map { $0.payoutEarnings ?? 0 }, "adjustments.payout_totals.earnings")
        }
        return PaddleSale(
            transactionID: transaction.id, subscriptionID: transaction.subscriptionID,
            customerID: transaction.customerID, productID: item.price.productID,
            purchaseDate: transaction.billedAt ?? transaction.createdAt, period: transaction.billingPeriod,
            isTrialPeriod: isTrial, currency: currency,
            price: try Self.milliunits(totals.total, currency, "details.totals.total"),
            subtotal: try Self.milliunits(totals.subtotal, currency, "details.totals.subtotal"),
            tax: try Self.milliunits(totals.tax, currency, "details.totals.tax"),
            processingFee: try totals.fee.map { amount throws(PaddleMappingError) in
                try Self.milliunits(amount, currency, "details.totals.fee")
            },
            earnings: try totals.earnings.map { amount throws(PaddleMappingError) in
                try Self.milliunits(amount, currency, "details.totals.earnings")
            },
            payout: payout,
            revocationDate: revoked ? takenBack.refunds.last?.date : nil,
            refundedFee: revoked ? try Self.sum(takenBack.refunds.map { $0.fee ?? 0 }, "adjustments.totals.fee") : nil,
            partialRefunds: revoked || takenBack.refunds.isEmpty ? nil : takenBack.refunds,
            accountHint: transaction.customData[Self.orderCustomDataKey].flatMap {
                $0.isEmpty ? nil : String($0.prefix(255))
            },
            bundleID: transaction.customData[Self.appCustomDataKey].flatMap {
                IdentifierRule.bundleID.accepts($0) ? $0 : nil
            })
    }

    /// The approved refunds and chargebacks of `transaction` in its currency, oldest first, less those a chargeback
    /// reversal gave back, in milli-units, each with the part of Paddle's fee it gave back (its fee less what Paddle
    /// retained) and, where Paddle states it in `payoutCurrency`, the earnings it took back in that currency; and
    /// their sum in minor units.
    static func takenBack(
        transaction: PaddleTransaction, adjustments: [PaddleAdjustment], payoutCurrency: String? = nil
    ) throws(PaddleMappingError) -> (refunds: [PartialRefund], amount: Int64) {
        let approved = adjustments.filter {
            $0.transactionID == transaction.id && $0.status == .approved && $0.totals.total > 0
                && $0.totals.currencyCode == transaction.currencyCode
        }
        .sorted { ($0.updatedAt ?? $0.createdAt, $0.id) < ($1.updatedAt ?? $1.createdAt, $1.id) }
        var kept: [(refund: PartialRefund, amount: Int64, isChargeback: Bool)] = []
        for adjustment in approved {
            switch adjustment.action {
            case .refund, .chargeback:
                let currency = transaction.currencyCode
                let amount = try milliunits(adjustment.totals.total, currency, "adjustments.totals.total")
                // A fee past what was given back is not Paddle's to return: bounded by the amount.
                let fee = try milliunits(
                    min(adjustment.totals.returnedFee, adjustment.totals.total), currency, "adjustments.totals.fee")
                let payoutEarnings = try adjustment.payoutTotals.flatMap {
                    payout throws(PaddleMappingError) -> Int64? in
                    guard payout.currencyCode == payoutCurrency else { return nil }
                    return try milliunits(
                        payout.earnings, payout.currencyCode, "adjustments.payout_totals.earnings")
                }
                kept.append(
                    (
                        PartialRefund(
                            date: adjustment.updatedAt ?? adjustment.createdAt, amount: amount, fee: fee,
                            payoutEarnings: payoutEarnings),
                        adjustment.totals.total, adjustment.action == .chargeback
                    ))
            case .chargebackReverse:
                // The bank gave the disputed money back: the latest chargeback no longer counts.
                if let last = kept.lastIndex(where: \.isChargeback) { kept.remove(at: last) }
            default:
                continue
            }
        }
        return (kept.map(\.refund), try sum(kept.map(\.amount), "adjustments.totals.total"))
    }

    /// `amounts` added up; a sum past `Int64` is a field out of range.
    static func sum(_ amounts: [Int64], _ field: String) throws(PaddleMappingError) -> Int64 {
        var sum: Int64 = 0
        for amount in amounts {
            let added = sum.addingReportingOverflow(amount)
            guard !added.overflow else { throw PaddleMappingError(.invalidField, field) }
            sum = added.partialValue
        }
        return sum
    }

    static func payout(_ payout: PaddleTransaction.PayoutTotals) throws(PaddleMappingError) -> StatedPayout {
        let currency = payout.currencyCode
        return StatedPayout(
            currency: currency, total: try milliunits(payout.total, currency, "details.payout_totals.total"),
            tax: try milliunits(payout.tax, currency, "details.payout_totals.tax"),
            fee: try milliunits(payout.fee, currency, "details.payout_totals.fee"),
            earnings: try milliunits(payout.earnings, currency, "details.payout_totals.earnings"))
    }

    static func milliunits(_ amount: Int64, _ currency: String, _ field: String) throws(PaddleMappingError) -> Int64 {
        guard amount >= 0, let value = PaddleMoney.milliunits(amount, currency: currency) else {
            throw PaddleMappingError(.invalidField, field)
        }
        return value
    }
}

/// What a paid Paddle transaction means to the ledger: the period it grants and the money as Paddle states it, in
/// the ledger's units (instants, milli-units, uppercase currency codes): the values a `Transaction` of the ledger
/// takes (`PaddleStore`'s `PaddleReadBack` makes it).
public struct PaddleSale: Sendable, Hashable {
    /// `txn_…`: the sale.
    public var transactionID: String
    /// `sub_…`: the chain a subscription's sale belongs to; `nil` for a one-time purchase.
    public var subscriptionID: String?
    /// `ctm_…`, which support looks purchases up by.
    public var customerID: String?
    /// `pro_…`: the product of its first item.
    public var productID: String
    /// When it was billed.
    public var purchaseDate: Instant
    /// The period it grants (`billing_period`); `nil` for a one-time purchase.
    public var period: PaddleTimePeriod?
    /// A subscription's first transaction of nothing paid, for a price with a trial.
    public var isTrialPeriod: Bool
    /// The transaction's currency (ISO 4217, uppercase).
    public var currency: String
    /// What the customer paid (`totals.total`, tax included), in milli-units of `currency`.
    public var price: Int64
    /// Before tax (`totals.subtotal`).
    public var subtotal: Int64
    /// The tax Paddle charged as merchant of record (`totals.tax`).
    public var tax: Int64
    /// Paddle's fee (`totals.fee`); `nil` where not yet stated.
    public var processingFee: Int64?
    /// What the seller earns (`totals.earnings`); `nil` where not yet stated.
    public var earnings: Int64?
    /// The same in the seller's payout currency; `nil` until Paddle states it.
    public var payout: StatedPayout?
    /// When the money was taken back in full (refunds and chargebacks reaching the total); `nil` otherwise.
    public var revocationDate: Instant?
    /// The part of `processingFee` the refunds that took it back gave back to the seller; `nil` while not revoked.
    public var refundedFee: Int64?
    /// Refunds and chargebacks of part of it, oldest first; `nil` when none, or when revoked.
    public var partialRefunds: [PartialRefund]?
    /// `custom_data.subledger_order`: the account hint.
    public var accountHint: String?
    /// `custom_data.subledger_app`: the app it was sold for.
    public var bundleID: String?

    public init(
        transactionID: String, subscriptionID: String?, customerID: String?, productID: String, purchaseDate: Instant,
        period: PaddleTimePeriod?, isTrialPeriod: Bool, currency: String, price: Int64, subtotal: Int64, tax: Int64,
        processingFee: Int64?, earnings: Int64?, payout: StatedPayout?, revocationDate: Instant?,
        refundedFee: Int64? = nil, partialRefunds: [PartialRefund]?, accountHint: String?, bundleID: String?
    ) {
        self.transactionID = transactionID
        self.subscriptionID = subscriptionID
        self.customerID = customerID
        self.productID = productID
        self.purchaseDate = purchaseDate
        self.period = period
        self.isTrialPeriod = isTrialPeriod
        self.currency = currency
        self.price = price
        self.subtotal = subtotal
        self.tax = tax
        self.processingFee = processingFee
        self.earnings = earnings
        self.payout = payout
        self.revocationDate = revocationDate
        self.refundedFee = refundedFee
        self.partialRefunds = partialRefunds
        self.accountHint = accountHint
        self.bundleID = bundleID
    }

    /// The end of the period it grants: the ledger's `expiresDate`.
    public var expiresDate: Instant? { period?.endsAt }
}
