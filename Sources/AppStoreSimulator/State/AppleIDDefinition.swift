import SubLedgerCore

/// A simulated Apple ID (a customer account, or a sandbox tester).
public struct AppleIDDefinition: Sendable, Codable, Hashable {
    /// The account name; default: `customer-N@example.com`.
    public var appleID: String?
    /// `Sandbox` (default) or `Production`: which verifyReceipt endpoint and Server API base its receipts belong to.
    public var environment: StoreEnvironment?
    /// The storefront country (ISO 3166-1 alpha-3). Default: `USA`.
    public var storefront: String?

    /// Creates a definition; every field has a default.
    public init(appleID: String? = nil, environment: StoreEnvironment? = nil, storefront: String? = nil) {
        self.appleID = appleID
        self.environment = environment
        self.storefront = storefront
    }
}
