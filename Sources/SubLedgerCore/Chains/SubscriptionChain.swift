/// The stored row of one chain: everything its store files under one chain id (Apple's original transaction id,
/// the first purchase token of a Google Play lineage) in one environment.
///
/// Named for its main use, an auto-renewable subscription and its renewals, but every product is kept as a
/// chain: a non-consumable and its restores, or a single consumable or non-renewing purchase.
public struct SubscriptionChain: Hashable, Sendable, Codable {
    public var key: ChainKey
    public var bundleID: String
    public var productType: ProductType
    /// The account the chain is bound to; `nil` while unclaimed.
    public var owner: AccountID?
    /// The product of the chain's latest transaction (or of its renewal info, before any transaction).
    public var productID: String
    public var subscriptionGroupID: String?
    /// The greatest period end among the chain's transactions, as Apple states it (or as the catalog's
    /// duration gives it for a non-renewing purchase).
    public var latestExpiry: Instant?
    /// The most recently observed renewal state (greatest `observedAt`); never replaced by an older one.
    public var renewalInfo: RenewalInfo?

    public init(
        key: ChainKey,
        bundleID: String,
        productType: ProductType,
        owner: AccountID? = nil,
        productID: String,
        subscriptionGroupID: String? = nil,
        latestExpiry: Instant? = nil,
        renewalInfo: RenewalInfo? = nil
    ) {
        self.key = key
        self.bundleID = bundleID
        self.productType = productType
        self.owner = owner
        self.productID = productID
        self.subscriptionGroupID = subscriptionGroupID
        self.latestExpiry = latestExpiry
        self.renewalInfo = renewalInfo
    }
}
