import SubLedgerCore

/// An app as stored: its database id, the core's view of it, and its secrets.
public struct StoredApp: Sendable, Hashable {
    public var appID: Int64
    public var app: App
    /// The app-specific shared secret for verifyReceipt and V1 notifications, if configured.
    public var sharedSecret: String?

    public init(appID: Int64, app: App, sharedSecret: String?) {
        self.appID = appID
        self.app = app
        self.sharedSecret = sharedSecret
    }

    public var bundleID: String { app.bundleID }
}
