import SubLedgerCore

/// Body of `POST /control/bulk-chains`: how many synthetic subscription chains to create, quickly and
/// without notifications (a benchmark's or a migration test's existing subscribers).
public struct BulkSeedRequest: Sendable, Codable, Hashable {
    /// The most chains one request may create.
    public static let maximumCount = 1_000_000

    public var bundleID: String
    public var count: Int
    /// Seeds `SplitMix64`: the same seed gives the same mix of chains. Default 1.
    public var seed: UInt64?
    /// Default Sandbox.
    public var environment: StoreEnvironment?
    /// The product chains start on; default: the lowest tier of the app's first subscription group.
    public var productID: String?
    /// The product upgraded chains move to; default: the highest tier of that group (none: no upgrades).
    public var upgradeProductID: String?
    /// `json` (default) or `csv` (the file `subledger import` reads).
    public var format: String?

    public init(
        bundleID: String, count: Int, seed: UInt64? = nil, environment: StoreEnvironment? = nil,
        productID: String? = nil, upgradeProductID: String? = nil, format: String? = nil
    ) {
        self.bundleID = bundleID
        self.count = count
        self.seed = seed
        self.environment = environment
        self.productID = productID
        self.upgradeProductID = upgradeProductID
        self.format = format
    }
}
