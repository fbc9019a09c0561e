// The JSON bodies of the App Store Server API, as Apple sends them (signed items still encoded).
// `AppStoreServerAPIClient` (in AppStoreClients) verifies every signed item before returning anything.

/// One notification Apple sent, with its delivery attempts.
public struct NotificationHistoryResponseItem: Codable, Hashable, Sendable {
    /// Apple's `signedPayload`.
    public var signedPayload: String?
    /// Apple's `sendAttempts`.
    public var sendAttempts: [SendAttemptItem]?
}
