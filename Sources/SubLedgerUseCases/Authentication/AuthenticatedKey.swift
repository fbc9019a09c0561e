/// A valid, unrevoked API key presented with a request: which app it may act for, or which operator role it has.
public struct AuthenticatedKey: Sendable, Hashable {
    /// What a key is for. Only an app key belongs to an app; the others act across every app, each within its
    /// permissions (`Permission`, docs/guides/accounts.md "Roles and the audit log").
    public enum Scope: String, Sendable, Hashable, CaseIterable, Codable {
        /// An app server's key: reads and writes one app's accounts only.
        case app
        /// An operator's key: everything an operator can do, every app.
        case admin
        /// A support team's key: customer lookups and the changes support makes for a customer (grants,
        /// renewal-date extensions, merges), never secrets, webhook endpoints, the catalog or keys.
        case support
        /// A finance key: the reports and the admin page's charts, read-only.
        case reports

        /// What a key of this scope may do.
        public var permissions: Set<Permission> {
            switch self {
            case .app: [.appData]
            case .admin: Set(Permission.allCases).subtracting([.appData])
            case .support: [.adminPage, .customerLookup, .customerChanges]
            case .reports: [.adminPage, .reports]
            }
        }

        /// Whether what a key of this scope does is written to the audit log.
        public var isAudited: Bool { self == .admin || self == .support }
    }

    public var keyID: String
    public var scope: Scope
    /// The key's name, as listed (`subledger keys list`): who acted, in the audit log.
    public var name: String
    /// The app's database id and bundle id for an app key; `nil` for the other scopes.
    public var appID: Int64?
    public var bundleID: String?

    public init(keyID: String, scope: Scope, name: String, appID: Int64? = nil, bundleID: String? = nil) {
        self.keyID = keyID
        self.scope = scope
        self.name = name
        self.appID = appID
        self.bundleID = bundleID
    }

    /// Whether this key may do what `permission` guards.
    public func may(_ permission: Permission) -> Bool { scope.permissions.contains(permission) }
}
