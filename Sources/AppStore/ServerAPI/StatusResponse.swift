// The JSON bodies of the App Store Server API, as Apple sends them (signed items still encoded).
// `AppStoreServerAPIClient` (in AppStoreClients) verifies every signed item before returning anything.

/// Apple's `StatusResponse` (Get All Subscription Statuses).
public struct StatusResponse: Codable, Hashable, Sendable {
    /// Raw `environment`.
    public var rawEnvironment: String?
    /// Apple's `bundleId`.
    public var bundleID: String?
    /// Apple's `appAppleId`.
    public var appAppleID: Int64?
    /// Apple's `data`.
    public var data: [SubscriptionGroupIdentifierItem]?

    enum CodingKeys: String, CodingKey {
        case rawEnvironment = "environment"
        case bundleID = "bundleId"
        case appAppleID = "appAppleId"
        case data
    }
}
