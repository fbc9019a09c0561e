// The JSON bodies of the App Store Server API, as Apple sends them (signed items still encoded).
// `AppStoreServerAPIClient` (in AppStoreClients) verifies every signed item before returning anything.

/// Apple's `RefundHistoryResponse` (Get Refund History v2).
public struct RefundHistoryResponse: Codable, Hashable, Sendable {
    /// Apple's `signedTransactions`.
    public var signedTransactions: [String]?
    /// Apple's `revision`.
    public var revision: String?
    /// Apple's `hasMore`.
    public var hasMore: Bool?
}
