// The JSON bodies of the App Store Server API, as Apple sends them (signed items still encoded).
// `AppStoreServerAPIClient` (in AppStoreClients) verifies every signed item before returning anything.

/// Apple's answer to Request a Test Notification (`SendTestNotificationResponse`).
public struct SendTestNotificationResponse: Codable, Hashable, Sendable {
    /// Apple's `testNotificationToken`: names the test in Get Test Notification Status.
    public var testNotificationToken: String?
}

/// Apple's answer to Get Test Notification Status (`CheckTestNotificationResponse`).
public struct CheckTestNotificationResponse: Codable, Hashable, Sendable {
    /// Apple's `signedPayload`: the `TEST` notification as Apple signed it.
    public var signedPayload: String?
    /// Apple's `sendAttempts`: each attempt to deliver it to the app's notification URL.
    public var sendAttempts: [SendAttemptItem]?
}
