/// A valid, unrevoked API key presented with a request: which app it may act for, or admin.
public struct AuthenticatedKey: Sendable, Hashable {
    public enum Scope: String, Sendable, Hashable {
        /// An app server's key: reads and writes one app's accounts only.
        case app
        /// An operator's key: the admin reports, every app.
        case admin
    }

    public var keyID: String
    public var scope: Scope
    /// The app's database id and bundle id for an app key; `nil` for admin keys.
    public var appID: Int64?
    public var bundleID: String?
    /// The key's name: who acts with it (a grant records it as its actor).
    public var name: String = ""
}
