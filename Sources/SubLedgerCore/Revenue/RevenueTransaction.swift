/// One transaction as revenue sees it: what it cost, for which period, and whether it was taken back.
///
/// Built by the reports from the `transaction_amounts` view; every revenue rule reads only this.
public struct RevenueTransaction: Hashable, Sendable {
    public var transactionID: String
    public var productID: String
    public var purchaseDate: Instant
    /// The end of the paid period; `nil` for purchases that are not subscriptions.
    public var expiresDate: Instant?
    /// A refund or revocation in force (not an upgrade): the refunded part of the price is given back at this
    /// instant, and the period served ends there.
    public var refundDate: Instant?
    /// The refunded share (`RevocationPercentage`, thousandths of a percent); `nil`: the whole price.
    public var refundPercentage: Int?
    /// When an upgrade within the group ended this period early (Apple refunds the unused part).
    public var upgradeDate: Instant?
    /// The product of the transaction that started at `upgradeDate`. An upgrade is to another product; the same
    /// product starting again before this period ended means this one was revoked by a refund SubLedger has not
    /// heard of yet: its period ends there, but nothing is credited back (`RevenueSale`).
    public var upgradedToProductID: String?
    /// The customer price in milli-units of `currency` (0 for free trials); `nil` when nothing prices it.
    public var amountMilliunits: Int64?
    public var currency: String?
    public var storefront: String?
    /// The amount came from the catalog, not from Apple.
    public var isEstimated: Bool
    /// Bought on a plan with a commitment (`BillingPlan.isCommitted`): its MRR is committed MRR.
    public var isCommitted: Bool
    /// The store that sold it (its commission rules).
    public var store: Store
    /// The payment processor's fee on the sale in milli-units of `currency` (Stripe's, from the charge's balance
    /// transaction; Paddle's); `nil` where the store states none.
    public var feeMilliunits: Int64?
    /// The part of `feeMilliunits` the refund in force gave back (`Transaction.refundedFee`: Paddle's); `nil` where
    /// the store keeps its fee on a refund (Stripe).
    public var refundedFeeMilliunits: Int64?
    /// The tax in the sale's price as the store states it, in milli-units of `currency` (Stripe's, on the invoice or
    /// the Checkout Session); `nil` where the store states none and the storefront's rate applies.
    public var taxMilliunits: Int64?
    /// Refunds of part of the sale that took nothing back (Stripe's and Paddle's, `Transaction.partialRefunds`),
    /// oldest first, each with the part of the fee it gave back where the store returns some (Paddle); empty when
    /// there are none or the sale was refunded whole.
    public var partialRefunds: [PartialRefund]

    public init(
        transactionID: String, productID: String, purchaseDate: Instant, expiresDate: Instant? = nil,
        refundDate: Instant? = nil, refundPercentage: Int? = nil, upgradeDate: Instant? = nil,
        amountMilliunits: Int64?, currency: String?, storefront: String? = nil, isEstimated: Bool = false,
        isCommitted: Bool = false, store: Store = .appStore, feeMilliunits: Int64? = nil,
        taxMilliunits: Int64? = nil, partialRefunds: [PartialRefund] = [], refundedFeeMilliunits: Int64? = nil
    ) {
        self.transactionID = transactionID
        self.productID = productID
        self.purchaseDate = purchaseDate
        self.expiresDate = expiresDate
        self.refundDate = refundDate
        self.refundPercentage = refundPercentage
        self.upgradeDate = upgradeDate
        self.amountMilliunits = amountMilliunits
        self.currency = currency
        self.storefront = storefront
        self.isEstimated = isEstimated
        self.isCommitted = isCommitted
        self.store = store
        self.feeMilliunits = feeMilliunits
        self.taxMilliunits = taxMilliunits
        self.partialRefunds = partialRefunds
        self.refundedFeeMilliunits = refundedFeeMilliunits
    }

    /// Whether the customer paid anything for it (free trials and free offers did not).
    public var isPaid: Bool { (amountMilliunits ?? 0) > 0 }

    /// The amount the refund in force gave back (`RefundAmount`: the share stated of the price); `nil` when not
    /// refunded or unpriced.
    public var refundedMilliunits: Int64? {
        guard refundDate != nil else { return nil }
        return RefundAmount.given(price: amountMilliunits, percentage: refundPercentage, isInForce: true)
    }

    /// The end of the period actually served: the upgrade moment when earlier than the expiry.
    public var servedUntil: Instant? {
        guard let expiresDate else { return nil }
        if let upgradeDate, upgradeDate < expiresDate { return max(upgradeDate, purchaseDate) }
        return expiresDate
    }

    /// `chain` in purchase order, each transaction that a later one of the chain started before it expired
    /// marked as upgraded at that start (`upgradeDate`), unless it was refunded.
    ///
    /// Why derived and not read: an upgrade within a group takes effect at once, so Apple's new transaction
    /// starts inside the old one's period, which is what Apple's `isUpgraded` + `revocationDate` say. Downgrades
    /// and crossgrades to a shorter or same-length plan take effect at the next renewal and overlap nothing.
    /// Reading Apple's flag would cost a jsonb read per transaction in every report.
    public static func markingUpgrades(_ chain: [RevenueTransaction]) -> [RevenueTransaction] {
        var ordered = chain.sorted { ($0.purchaseDate, $0.transactionID) < ($1.purchaseDate, $1.transactionID) }
        guard ordered.count > 1 else { return ordered }
        for index in 0..<(ordered.count - 1) where ordered[index].refundDate == nil {
            guard let expires = ordered[index].expiresDate else { continue }
            let next = ordered[index + 1].purchaseDate
            if next > ordered[index].purchaseDate, next < expires {
                ordered[index].upgradeDate = next
                ordered[index].upgradedToProductID = ordered[index + 1].productID
            }
        }
        return ordered
    }
}
