import SubLedgerCore

/// A version 1 notification whose password matched the app's shared secret.
public struct VerifiedNotificationV1: Sendable {
    /// The decoded body (its `password` is kept only in memory; encoding omits it).
    public var payload: NotificationV1Payload
    /// The notification mapped to the core.
    public var notification: ServerNotification
}
