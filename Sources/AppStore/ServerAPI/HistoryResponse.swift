// The JSON bodies of the App Store Server API, as Apple sends them (signed items still encoded).
// `AppStoreServerAPIClient` (in AppStoreClients) verifies every signed item before returning anything.

/// Apple's `HistoryResponse` (Get Transaction History v2).
public struct HistoryResponse: Codable, Hashable, Sendable {
    /// Apple's `revision`.
    public var revision: String?
    /// Apple's `hasMore`.
    public var hasMore: Bool?
    /// Apple's `bundleId`.
    public var bundleID: String?
    /// Apple's `appAppleId`.
    public var appAppleID: Int64?
    /// Raw `environment`.
    public var rawEnvironment: String?
    /// Apple's `signedTransactions`.
    public var signedTransactions: [String]?

    enum CodingKeys: String, CodingKey {
        case revision, hasMore
        case bundleID = "bundleId"
        case appAppleID = "appAppleId"
        case rawEnvironment = "environment"
        case signedTransactions
    }
}
