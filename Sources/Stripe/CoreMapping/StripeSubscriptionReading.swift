import SubLedgerCore

/// A subscription as read back from the Stripe API: the subscription itself, and each of its paid invoices with the
/// payment that paid it and what was refunded or disputed of that payment since. This, not an event's snapshot, is
/// what the ledger applies.
public struct StripeSubscriptionReading: Sendable, Hashable {
    public var subscription: StripeSubscription
    public var invoices: [PaidInvoice]

    /// One paid invoice and its payment.
    public struct PaidInvoice: Sendable, Hashable {
        public var invoice: StripeInvoice
        /// The charge that paid it; `nil` for an invoice of nothing to pay (a trial's).
        public var charge: StripeCharge?
        /// The charge's refunds (read when the charge states an amount refunded).
        public var refunds: [StripeRefund]
        /// The charge's disputes (read when the charge states it is disputed).
        public var disputes: [StripeDispute]

        public init(
            invoice: StripeInvoice, charge: StripeCharge? = nil, refunds: [StripeRefund] = [],
            disputes: [StripeDispute] = []
        ) {
            self.invoice = invoice
            self.charge = charge
            self.refunds = refunds
            self.disputes = disputes
        }
    }

    public init(subscription: StripeSubscription, invoices: [PaidInvoice]) {
        self.subscription = subscription
        self.invoices = invoices
    }

    /// The subscription's metadata key SubLedger writes the order into when it starts a checkout: the account hint.
    public static let orderMetadataKey = "subledger_order"
    /// The metadata key naming the app (its bundle id) the subscription was sold for.
    public static let appMetadataKey = "subledger_app"

    /// The app the subscription names in its metadata, if it names one.
    public var bundleID: String? { subscription.metadata[Self.appMetadataKey] }

    /// This reading in the ledger's terms: one transaction per paid invoice, and the subscription's renewal state.
    ///
    /// - The chain is the subscription (`sub_…`); a transaction is a paid invoice (`in_…`), dated by the period its
    ///   subscription line bills (`period.start` to `period.end`: a renewal's whole period, a plan change's rest of
    ///   the period), with the product of that line's price.
    /// - The price is what was paid, in milli-units (Stripe's minor units per currency, zero-decimal ones included);
    ///   an invoice of nothing paid within the trial is the trial. Stripe's fee is the charge's balance transaction's
    ///   (`StripeCharge.feeMilliunits`), in the same milli-units, when that balance transaction was read. The tax is
    ///   the invoice's (`total_taxes`, `StripeInvoice.taxMilliunits`), in the same milli-units.
    /// - A charge refunded in full, or a dispute lost, revokes its invoice (at the latest refund, or when the dispute
    ///   was opened); a partial refund leaves the period granted (the customer keeps what the rest paid for), and is
    ///   kept on the transaction (`partialRefunds`) for the revenue reports. A dispute won restores it: the reading
    ///   states the invoice clean again.
    /// - An earlier invoice whose period a later one of another product begins within is upgraded away from.
    /// - Live mode is `production`, test mode `sandbox`.
    /// - Each transaction names the subscription's customer (`cus_…`) and the charge that paid it (`ch_…`), which
    ///   support looks purchases up by.
    public func observation(observedAt: Instant) throws(StripeMappingError) -> (
        transactions: [Transaction], renewalInfo: RenewalInfo
    ) {
        let sub = subscription
        guard IdentifierRule.transactionID.accepts(sub.id) else { throw StripeMappingError(.invalidField, "id") }
        guard let item = sub.items.data.first else { throw StripeMappingError(.missingField, "items") }
        let itemProduct = item.price.product.id
        guard IdentifierRule.productID.accepts(itemProduct) else {
            throw StripeMappingError(.invalidField, "items.price.product")
        }
        let environment: StoreEnvironment = sub.livemode ? .production : .sandbox
        let accountHint = sub.metadata[Self.orderMetadataKey].flatMap { $0.isEmpty ? nil : String($0.prefix(255)) }
        let started = try Self.instant(sub.startDate ?? sub.created, "start_date")
        // Kept for support's lookups; an id no identifier could be is left out rather than refused.
        let customer = sub.customer.map(\.id).flatMap { IdentifierRule.transactionID.accepts($0) ? $0 : nil }
        var transactions: [Transaction] = []
        for paid in invoices {
            let invoice = paid.invoice
            guard invoice.status == "paid" else { continue }
            guard IdentifierRule.transactionID.accepts(invoice.id) else {
                throw StripeMappingError(.invalidField, "invoice.id")
            }
            guard StripeCurrency.isCode(invoice.currency) else {
                throw StripeMappingError(.invalidField, "invoice.currency")
            }
            // The line that bills the subscription's period: the latest-ending one of a non-negative amount.
            let line = invoice.lines.data.filter { $0.amount >= 0 && $0.period != nil }.max {
                ($0.period?.end ?? 0) < ($1.period?.end ?? 0)
            }
            guard let period = line?.period else { throw StripeMappingError(.missingField, "invoice.lines.period") }
            let start = try Self.instant(period.start, "invoice.lines.period.start")
            let end = try Self.instant(period.end, "invoice.lines.period.end")
            guard end > start else { throw StripeMappingError(.invalidField, "invoice.lines.period") }
            let product = line?.pricing?.priceDetails?.product ?? itemProduct
            guard IdentifierRule.productID.accepts(product) else {
                throw StripeMappingError(.invalidField, "invoice.lines.pricing.price_details.product")
            }
            guard invoice.amountPaid >= 0,
                let price = StripeCurrency.milliunits(invoice.amountPaid, currency: invoice.currency)
            else { throw StripeMappingError(.invalidField, "invoice.amount_paid") }
            let isTrial =
                invoice.amountPaid == 0 && sub.trialEnd.map { period.end <= $0 } == true
            let revocation = try Self.revocation(of: paid)
            let partialRefunds =
                revocation == nil
                ? try Self.partialRefunds(charge: paid.charge, refunds: paid.refunds, currency: invoice.currency) : nil
            transactions.append(
                Transaction(
                    transactionID: invoice.id, chainID: sub.id, productID: product, bundleID: bundleID,
                    purchaseDate: start, originalPurchaseDate: started, expiresDate: end,
                    revocationDate: revocation, revocationReason: revocation == nil ? nil : 0,
                    isTrialPeriod: isTrial, accountHint: accountHint, environment: environment,
                    source: .stripeAPI, price: price, currency: invoice.currency.uppercased(),
                    processingFee: paid.charge?.feeMilliunits, tax: invoice.taxMilliunits,
                    partialRefunds: partialRefunds, customerID: customer,
                    paymentID: paid.charge.map(\.id).flatMap { IdentifierRule.transactionID.accepts($0) ? $0 : nil }))
        }
        // Upgraded away from: a later transaction of another product starts within this one's period.
        for index in transactions.indices {
            let earlier = transactions[index]
            transactions[index].isUpgraded = transactions.contains { later in
                later.productID != earlier.productID && later.purchaseDate > earlier.purchaseDate
                    && later.purchaseDate < (earlier.expiresDate ?? earlier.purchaseDate)
            }
        }
        let active = ["trialing", "active", "past_due"].contains(sub.status)
        let renewalDate = try item.currentPeriodEnd.map { seconds throws(StripeMappingError) in
            try Self.instant(seconds, "items.current_period_end")
        }
        let renewalPrice = item.price.unitAmount.flatMap { amount -> Int64? in
            let total = amount.multipliedReportingOverflow(by: max(1, item.quantity ?? 1))
            return total.overflow ? nil : StripeCurrency.milliunits(total.partialValue, currency: item.price.currency)
        }
        let renewal = RenewalInfo(
            chainID: sub.id, productID: transactions.last?.productID ?? itemProduct,
            autoRenewProductID: itemProduct,
            willAutoRenew: active && !sub.cancelAtPeriodEnd && sub.cancelAt == nil && sub.pauseCollection == nil,
            expirationIntent: Self.expirationIntent(sub), isInBillingRetryPeriod: sub.status == "past_due",
            renewalDate: renewalDate, renewalPrice: renewalPrice, currency: item.price.currency.uppercased(),
            environment: environment, observedAt: observedAt)
        return (transactions, renewal)
    }

    /// When the invoice's payment was taken back: a dispute lost (when it was opened), else a full refund (the
    /// latest succeeded refund, or the charge itself when the refunds were not read).
    static func revocation(of paid: PaidInvoice) throws(StripeMappingError) -> Instant? {
        try revocation(charge: paid.charge, refunds: paid.refunds, disputes: paid.disputes)
    }

    /// When a charge was taken back: a dispute lost (when it was opened), else a full refund (the latest succeeded
    /// refund, or the charge itself when the refunds were not read). A partial refund takes nothing back.
    static func revocation(charge: StripeCharge?, refunds: [StripeRefund], disputes: [StripeDispute])
        throws(StripeMappingError) -> Instant?
    {
        if let lost = disputes.filter({ $0.status == "lost" }).map(\.created).max() {
            return try instant(lost, "dispute.created")
        }
        guard let charge, charge.refunded || (charge.amount > 0 && charge.amountRefunded >= charge.amount)
        else { return nil }
        let refunded = refunds.filter { $0.status == nil || $0.status == "succeeded" }.map(\.created).max()
        return try instant(refunded ?? charge.created, "refund.created")
    }

    /// The refunds of a charge that was not taken back (call it only when `revocation` is `nil`): each succeeded
    /// refund, oldest first, in milli-units of the sale's `currency`; `nil` when there are none. A refund in another
    /// currency than the sale's, or of nothing, is left out.
    static func partialRefunds(charge: StripeCharge?, refunds: [StripeRefund], currency: String)
        throws(StripeMappingError) -> [PartialRefund]?
    {
        guard let charge, charge.currency.lowercased() == currency.lowercased() else { return nil }
        var list: [PartialRefund] = []
        for refund in refunds where refund.status == nil || refund.status == "succeeded" {
            guard refund.amount > 0, let amount = StripeCurrency.milliunits(refund.amount, currency: currency) else {
                continue
            }
            list.append(PartialRefund(date: try instant(refund.created, "refund.created"), amount: amount))
        }
        list.sort { $0.date != $1.date ? $0.date < $1.date : $0.amount < $1.amount }
        return list.isEmpty ? nil : list
    }

    /// Apple's expiration intent for how the subscription ended: 1 the customer cancelled, 2 a billing problem.
    static func expirationIntent(_ subscription: StripeSubscription) -> Int? {
        switch subscription.cancellationDetails?.reason {
        case "cancellation_requested": 1
        case "payment_failed": 2
        case "payment_disputed": 5
        default:
            switch subscription.status {
            case "unpaid", "incomplete_expired": 2
            case "canceled": 1
            default: nil
            }
        }
    }

    static func instant(_ seconds: Int64, _ field: String) throws(StripeMappingError) -> Instant {
        let milliseconds = seconds.multipliedReportingOverflow(by: 1000)
        guard !milliseconds.overflow, let instant = Instant(acceptedMillisecondsSince1970: milliseconds.partialValue)
        else { throw StripeMappingError(.invalidField, field) }
        return instant
    }
}
