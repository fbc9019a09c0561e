import HTTPTypes
import SubLedgerCore
import SubLedgerUseCases

/// Which permission each keyed route needs: the one table the server consults (`AuthorizationMiddleware`) to let
/// a key through or refuse it with 403 `wrong_key_scope`. A scope's permissions are in
/// `AuthenticatedKey.Scope.permissions`; docs/guides/accounts.md ("Roles and the audit log") states both as a table.
///
/// A route is written as Hummingbird declares it, with `{parameter}` for a path parameter. A keyed route that is
/// not listed needs its group's permission (`fallback`): `.appData` under `/v1`, `.operations` (admin keys
/// only) under `/v1/admin` and `/admin`; so a new admin route is closed to support and reports keys until it is
/// listed here.
enum RoutePermissions {
    /// A method and a route.
    struct Route: Hashable {
        var method: HTTPRequest.Method
        var path: String

        init(_ method: HTTPRequest.Method, _ path: String) {
            self.method = method
            self.path = path
        }
    }

    /// The permission each listed route needs.
    static let table: [Route: Permission] = {
        var table = listed
        // A store's own lookup (`/v1/admin/lookup/{store}/{id}`: Stripe's, and those a store's `StoreSupportID`s
        // add) is a customer lookup like every other.
        for store in Store.allCases {
            table[Route(.get, "/v1/admin/lookup/\(store.rawValue)/{id}")] = .customerLookup
        }
        return table
    }()

    /// The routes listed by hand.
    private static let listed: [Route: Permission] = [
        // The admin page: what it shows depends on the key's other permissions (`AdminPageSections`).
        Route(.get, "/admin"): .adminPage,
        Route(.get, "/admin/revenue"): .reports,
        Route(.get, "/admin/audit"): .audit,
        // Reports, read-only.
        Route(.get, "/v1/admin/reports/{name}"): .reports,
        Route(.get, "/v1/admin/reports/{name}/{id}"): .reports,
        // Support lookups; a POST also applies what the store knows and the ledger lacks.
        Route(.get, "/v1/admin/lookup/order/{id}"): .customerLookup,
        Route(.get, "/v1/admin/lookup/transaction/{id}"): .customerLookup,
        Route(.get, "/v1/admin/lookup/token/{id}"): .customerLookup,
        Route(.get, "/v1/admin/lookup/account/{id}"): .customerLookup,
        Route(.get, "/v1/admin/lookup/purchase-token/{id}"): .customerLookup,
        Route(.get, "/v1/admin/lookup/app-transaction/{id}"): .customerLookup,
        Route(.post, "/v1/admin/lookup/order/{id}"): .customerChanges,
        Route(.post, "/v1/admin/lookup/transaction/{id}"): .customerChanges,
        // Granted entitlements, in their own `/v1` group whose `AuthorizationMiddleware` has the fallback
        // `.operations` (so app keys stay refused). Merges and any other change support makes for a customer go
        // here the same way, as `.customerChanges`; a read of a customer's data as `.customerLookup`.
        Route(.post, "/v1/accounts/{account_id}/grants"): .customerChanges,
        Route(.get, "/v1/accounts/{account_id}/grants"): .customerLookup,
        Route(.delete, "/v1/accounts/{account_id}/grants/{grant_id}"): .customerChanges,
        // Account merges and the aliases they leave (docs/guides/accounts.md, "Merging accounts"), in the same group:
        // a merge moves purchases between customers, which an app's key (held by a server that talks to clients)
        // must not be able to do for any two ids; the app server's sign-in flow calls it with a support key.
        Route(.post, "/v1/accounts/{account_id}/merge"): .customerChanges,
        Route(.get, "/v1/accounts/{account_id}/aliases"): .customerLookup,
        // Erasing an account (docs/guides/accounts.md, "Erasing an account") cannot be undone: admin keys only
        // (`.operations`, as this group's fallback), not support's customer changes.
        Route(.delete, "/v1/accounts/{account_id}"): .operations,
        // Webhook endpoints and their secrets.
        Route(.get, "/v1/admin/webhooks"): .webhooks,
        Route(.post, "/v1/admin/webhooks"): .webhooks,
        Route(.get, "/v1/admin/webhooks/{id}"): .webhooks,
        Route(.delete, "/v1/admin/webhooks/{id}"): .webhooks,
        Route(.post, "/v1/admin/webhooks/{id}/rotate-secret"): .webhooks,
        Route(.post, "/v1/admin/webhooks/{id}/pause"): .webhooks,
        Route(.post, "/v1/admin/webhooks/{id}/resume"): .webhooks,
        Route(.post, "/v1/admin/webhooks/{id}/test"): .webhooks,
        Route(.get, "/v1/admin/webhooks/{id}/deliveries"): .webhooks,
        Route(.post, "/v1/admin/webhooks/{id}/replay"): .webhooks,
        // The audit log.
        Route(.get, "/v1/admin/audit"): .audit,
    ]

    /// The permissions a request of `method` on `route` needs, any one of which lets a key through: the listed
    /// one, or `fallback`. An app's own routes under `/v1` that support may also call (a listed
    /// `.customerChanges` route under `/v1/accounts/...`) stay open to the app's key.
    static func required(_ method: HTTPRequest.Method, _ route: String, fallback: Permission) -> Set<Permission> {
        // HEAD is answered as GET.
        let asked = method == .head ? .get : method
        guard let listed = table[Route(asked, normalized(route))] else { return [fallback] }
        return fallback == .appData ? [listed, .appData] : [listed]
    }

    /// `route` with one leading slash and none trailing, as the table writes routes.
    static func normalized(_ route: String) -> String {
        var path = Substring(route)
        while path.hasSuffix("/") { path = path.dropLast() }
        while path.hasPrefix("/") { path = path.dropFirst() }
        return "/" + path
    }
}
