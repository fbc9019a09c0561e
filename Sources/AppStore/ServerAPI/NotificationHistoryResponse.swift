// The JSON bodies of the App Store Server API, as Apple sends them (signed items still encoded).
// `AppStoreServerAPIClient` (in AppStoreClients) verifies every signed item before returning anything.

/// Apple's `NotificationHistoryResponse` (Get Notification History).
public struct NotificationHistoryResponse: Codable, Hashable, Sendable {
    /// Apple's `paginationToken`.
    public var paginationToken: String?
    /// Apple's `hasMore`.
    public var hasMore: Bool?
    /// Apple's `notificationHistory`.
    public var notificationHistory: [NotificationHistoryResponseItem]?
}
