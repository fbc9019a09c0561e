/// One entitlement an account holds at an instant, and the chain it comes from.
public struct Entitlement: Hashable, Sendable, Codable {
    public var entitlementID: String
    public var productID: String
    public var productType: ProductType
    public var bundleID: String
    public var environment: StoreEnvironment
    /// The source chain.
    public var chainID: String
    /// The transaction whose period grants it.
    public var transactionID: String
    /// `active` or `gracePeriod`: the only states that grant access.
    public var state: ChainState
    /// When the paid period ends (cut short by an upgrade); `nil` for products that never expire.
    public var expiresAt: Instant?
    /// When the grace period ends, while in one.
    public var gracePeriodExpiresAt: Instant?
    /// Whether the subscription will renew, per the latest renewal info; `nil` for other products.
    public var willAutoRenew: Bool?
    public var ownershipType: OwnershipType
    /// The store that sold the product granting it (the catalog's `store` of the product).
    public var store: Store
    /// The grant it comes from when it was given by hand (`EntitlementGrant`) and not sold by a store; reads then
    /// name its source `granted` instead of a store.
    public var grantID: String?

    public init(
        entitlementID: String,
        productID: String,
        productType: ProductType,
        bundleID: String,
        environment: StoreEnvironment,
        chainID: String,
        transactionID: String,
        state: ChainState,
        expiresAt: Instant?,
        gracePeriodExpiresAt: Instant?,
        willAutoRenew: Bool?,
        ownershipType: OwnershipType,
        store: Store,
        grantID: String? = nil
    ) {
        self.entitlementID = entitlementID
        self.productID = productID
        self.productType = productType
        self.bundleID = bundleID
        self.environment = environment
        self.chainID = chainID
        self.transactionID = transactionID
        self.state = state
        self.expiresAt = expiresAt
        self.gracePeriodExpiresAt = gracePeriodExpiresAt
        self.willAutoRenew = willAutoRenew
        self.ownershipType = ownershipType
        self.store = store
        self.grantID = grantID
    }

    /// What reads and events call its source: `granted` for a grant, else the store's name.
    public var sourceName: String { grantID == nil ? store.rawValue : "granted" }

    /// When access ends: the grace period's end while in one, else the period's end; `nil` for never.
    public var accessEndsAt: Instant? {
        state == .gracePeriod ? gracePeriodExpiresAt : expiresAt
    }
}
