// What the client returns: Apple's answers with every signed item verified and decoded.

/// Get Test Notification Status: the `TEST` notification Apple sent, verified, and how its delivery went.
public struct TestNotificationStatus: Sendable {
    /// The verified notification payload (its `notificationUUID` is the one SubLedger stores on arrival).
    public var notification: ResponseBodyV2DecodedPayload
    /// Apple's delivery attempts so far, oldest first (none yet while Apple has not tried).
    public var sendAttempts: [SendAttemptItem]

    /// Creates a status.
    public init(notification: ResponseBodyV2DecodedPayload, sendAttempts: [SendAttemptItem]) {
        self.notification = notification
        self.sendAttempts = sendAttempts
    }
}
