/// What a route (or a part of the admin page) needs of a key. Each key scope has a set of these
/// (`AuthenticatedKey.Scope.permissions`); each route names one (`RoutePermissions` in the HTTP module).
public enum Permission: String, Sendable, Hashable, CaseIterable {
    /// One app's accounts, orders and purchases (the app's own server).
    case appData
    /// The admin page itself; what it shows depends on the key's other permissions.
    case adminPage
    /// The reports and the admin page's charts (read-only).
    case reports
    /// Looking a customer up: support lookups, the admin page's search box.
    case customerLookup
    /// Changing what a customer is owed: grants, renewal-date extensions, merges, a lookup that applies what
    /// the store knows.
    case customerChanges
    /// Webhook endpoints and their secrets.
    case webhooks
    /// The audit log.
    case audit
    /// The calls owed to the stores, the catalog and keys (the admin page's operations panels).
    case operations
}
