// The JSON bodies of the App Store Server API, as Apple sends them (signed items still encoded).
// `AppStoreServerAPIClient` (in AppStoreClients) verifies every signed item before returning anything.

/// Apple's `OrderLookupResponse` (Look Up Order ID): `status` 0 valid, 1 invalid.
public struct OrderLookupResponse: Codable, Hashable, Sendable {
    /// Apple's `status`.
    public var status: Int?
    /// Apple's `signedTransactions`.
    public var signedTransactions: [String]?
}
