// The JSON bodies of the App Store Server API, as Apple sends them (signed items still encoded).
// `AppStoreServerAPIClient` (in AppStoreClients) verifies every signed item before returning anything.

/// One delivery attempt of a notification.
public struct SendAttemptItem: Codable, Hashable, Sendable {
    /// Apple's `attemptDate`, milliseconds since 1970.
    public var attemptDate: Int64?
    /// Raw `sendAttemptResult` (`SUCCESS`, `TIMED_OUT`, `NO_RESPONSE`, `CIRCULAR_REDIRECT`, ...).
    public var sendAttemptResult: String?
}
