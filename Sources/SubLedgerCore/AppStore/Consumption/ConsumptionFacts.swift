/// Everything the ledger and the app server know about a purchase Apple asks about, read at answer time.
public struct ConsumptionFacts: Hashable, Sendable {
    /// One purchase of the account, for its lifetime totals.
    public struct Purchase: Hashable, Sendable {
        /// Apple's price in milli-units of `currency`, when known.
        public var price: Int64?
        public var currency: String?
        public var refunded: Bool

        public init(price: Int64?, currency: String?, refunded: Bool) {
            self.price = price
            self.currency = currency
            self.refunded = refunded
        }
    }

    /// The type of the product bought, when the catalog knows it.
    public var productType: ProductType?
    /// The account the ledger credited the purchase to (the chain's current owner), if any.
    public var account: AccountID?
    /// The account's latest consent record at answer time, if any.
    public var consent: ConsumptionConsent?
    /// What the app server reported about the transaction (latest value of each field).
    public var usage: ConsumptionUsage
    /// The account's first purchase: the start of its tenure.
    public var customerSince: Instant?
    /// Every purchase credited to the account (including the one asked about).
    public var purchases: [Purchase]
    /// The purchase's app account token, if it had one.
    public var appAccountToken: String?

    public init(
        productType: ProductType?, account: AccountID?, consent: ConsumptionConsent?,
        usage: ConsumptionUsage = ConsumptionUsage(), customerSince: Instant? = nil, purchases: [Purchase] = [],
        appAccountToken: String? = nil
    ) {
        self.productType = productType
        self.account = account
        self.consent = consent
        self.usage = usage
        self.customerSince = customerSince
        self.purchases = purchases
        self.appAccountToken = appAccountToken
    }
}
