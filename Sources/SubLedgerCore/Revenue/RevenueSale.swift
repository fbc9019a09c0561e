/// One transaction's money: the sale at its purchase and, if any, the refund that gave (part of) it back.
public struct RevenueSale: Hashable, Sendable {
    public var transaction: RevenueTransaction
    /// Why the commission is what it is.
    public var basis: Commission.Basis
    /// The storefront's tax rate applied, in parts per million (0 when no rate is loaded for the storefront, or when
    /// the store stated the sale's tax: `transaction.taxMilliunits`).
    public var taxPPM: Int64
    /// The sale's split; `nil` when the transaction is unpriced.
    public var sale: Proceeds?
    /// The refund's split (the same rates, on the refunded amount), when refunded or upgraded away.
    public var refund: Proceeds?
    /// When the refund happened: the refund date, or the upgrade moment.
    public var refundDate: Instant?
    /// The refund is Apple's prorated credit for an upgrade, computed here, not stated by Apple.
    public var refundIsEstimated: Bool
    /// The splits of the partial refunds (`RevenueTransaction.partialRefunds`), each on its own day; none when the
    /// sale was refunded whole (that refund gave the whole price back).
    public var partialRefunds: [PartialRefundSplit] = []

    /// A partial refund's split: the sale's rates on the amount given back.
    public struct PartialRefundSplit: Hashable, Sendable {
        public var date: Instant
        public var refund: Proceeds
    }

    /// Every transaction of one chain (one subscriber in one subscription group) as sales.
    ///
    /// - the commission basis follows `Commission.basis(of:subscription:smallBusiness:accruedPaidMilliseconds:)`, the
    ///   store's rules, with `PaidServiceDays` over the whole chain (a Google Play
    ///   subscription's sales are at Google's 15 % from the first);
    /// - a refund gives back its share of the price (`RevenueTransaction.refundedMilliunits`: the whole price
    ///   unless Apple stated a `revocationPercentage`) at the refund date, with the sale's rates;
    /// - an upgrade gives back the unused share of the old period, price × (expiry − upgrade) / (expiry −
    ///   purchase), at the upgrade moment, marked estimated (Apple does not state it), where the store refunds it
    ///   (`Store.refundsUnusedTimeOnReplacement`: the App Store; a Google Play replacement gives no money back) and
    ///   the new period is another product's (the same product again means an unheard-of refund, not an upgrade);
    /// - a partial refund (`partialRefunds`, Stripe's: the sale is kept) gives back its amount (at most the price) on
    ///   its own date, with the sale's rates, unless the sale was refunded whole;
    /// - the payment processor's fee (`feeMilliunits`: Stripe's, Paddle's) is the sale's; a refund gives back the
    ///   part of it the store states it returned (`refundedFeeMilliunits`, `PartialRefund.fee`: Paddle's, at most
    ///   the sale's fee), and none where the store keeps it (Stripe);
    /// - tax (`taxPPM(storefront, day)`) and the program (`smallBusiness`) are read on the purchase day; a tax the
    ///   store states (`taxMilliunits`, Stripe's) is deducted instead of the storefront's rate, and a refund or credit
    ///   gives back its share of it (tax × refunded / price).
    public static func sales(
        of chain: [RevenueTransaction], smallBusiness: [SmallBusinessPeriod],
        taxPPM: (_ storefront: String?, _ day: Int64) -> Int64
    ) -> [RevenueSale] {
        let accrued = PaidServiceDays.accruedBefore(chain)
        return chain.map { transaction in
            let day = CalendarDay.of(transaction.purchaseDate)
            let basis = Commission.basis(
                of: transaction.store, subscription: transaction.expiresDate != nil,
                smallBusiness: smallBusiness.contains { $0.contains(day) },
                accruedPaidMilliseconds: accrued[transaction.transactionID] ?? 0)
            let stated = transaction.amountMilliunits == nil ? nil : transaction.taxMilliunits
            let tax = transaction.amountMilliunits == nil || stated != nil ? 0 : taxPPM(transaction.storefront, day)
            let rate = Commission.ppm(basis)
            /// The split of `part` of the sale's price (the whole of it, a refund, a credit).
            func split(_ part: Int64, fee: Int64 = 0) -> Proceeds {
                guard let stated, let amount = transaction.amountMilliunits else {
                    return Proceeds.of(price: part, taxPPM: tax, commissionPPM: rate, fee: fee)
                }
                return Proceeds.of(
                    price: part, tax: Proceeds.taxShare(stated, part: part, of: amount), commissionPPM: rate, fee: fee)
            }
            /// The part of the sale's fee a refund states it gave back: 0 to the sale's fee.
            func returnedFee(_ stated: Int64?) -> Int64 {
                min(max(stated ?? 0, 0), max(transaction.feeMilliunits ?? 0, 0))
            }
            var result = RevenueSale(
                transaction: transaction, basis: basis, taxPPM: tax,
                sale: transaction.amountMilliunits.map { split($0, fee: transaction.feeMilliunits ?? 0) },
                refund: nil, refundDate: nil, refundIsEstimated: false)
            guard let amount = transaction.amountMilliunits, amount > 0 else { return result }
            if transaction.refundDate == nil {
                result.partialRefunds = transaction.partialRefunds.filter { $0.amount > 0 && $0.amount <= amount }
                    .map { PartialRefundSplit(date: $0.date, refund: split($0.amount, fee: returnedFee($0.fee))) }
            }
            if let refundDate = transaction.refundDate, let refunded = transaction.refundedMilliunits {
                result.refund = split(refunded, fee: returnedFee(transaction.refundedFeeMilliunits))
                result.refundDate = refundDate
            } else if transaction.store.refundsUnusedTimeOnReplacement, let upgrade = transaction.upgradeDate,
                let expires = transaction.expiresDate, upgrade < expires,
                transaction.upgradedToProductID != transaction.productID
            {
                let whole = expires.millisecondsSince1970 - transaction.purchaseDate.millisecondsSince1970
                let unused =
                    expires.millisecondsSince1970 - max(upgrade, transaction.purchaseDate).millisecondsSince1970
                guard whole > 0 else { return result }
                let (high, low) = amount.multipliedFullWidth(by: unused)
                let (quotient, remainder) = whole.dividingFullWidth((high, low))
                let credit = quotient + (remainder * 2 >= whole ? 1 : 0)
                result.refund = split(credit)
                result.refundDate = max(upgrade, transaction.purchaseDate)
                result.refundIsEstimated = true
            }
            return result
        }
    }
}
