import SubLedgerCore

/// A simulated Apple ID as stored.
public struct AppleIDDescription: Sendable, Codable, Hashable {
    /// The account name.
    public var appleID: String
    /// Its environment.
    public var environment: StoreEnvironment
    /// Its storefront.
    public var storefront: String
}
