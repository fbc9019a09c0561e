import Hummingbird
import SubLedgerCore
import SubLedgerUseCases

/// How a request under `/v1` reaches an app's data (orders, submissions, an account's reads): its key
/// (`APIKeyMiddleware`), then what the key may call (`AuthorizationMiddleware`, `RoutePermissions` with the
/// fallback `.appData`). One value, used by the router's `/v1` group and by the entitlement read answered on the
/// event loop (`EntitlementReadRoute`), so a change to either applies to both.
struct AppDataAccess: Sendable {
    /// The routes' common prefix.
    static let group: RouterPath = "v1"

    let authentication: APIKeyMiddleware
    let authorization: AuthorizationMiddleware

    init(keys: APIKeys, audit: AuditLog, now: @escaping @Sendable () -> Instant) {
        authentication = APIKeyMiddleware(keys: keys)
        authorization = AuthorizationMiddleware(fallback: .appData, audit: audit, now: now)
    }

    /// The key cache the authentication reads.
    var keys: APIKeys { authentication.keys }
}
