import Hummingbird
import SubLedgerCore
import SubLedgerReports

/// The query parameters each route takes: the one table the server consults (`QueryParameterMiddleware`) to refuse
/// a parameter a route does not take with 400 `unknown_parameter`, on every route alike, so a misspelt parameter
/// (`?bundleid=`, `?at_time=`) is never silently ignored. docs/reference/http.md ("Query parameters") states the rule.
///
/// A route is written as `RoutePermissions` writes it (as Hummingbird declares it, `{parameter}` for a path
/// parameter); a route that is not listed takes no query parameter. HEAD is checked as GET. What each parameter's
/// value may be is the route's own business (its 400 codes); this table only knows the names.
enum RouteQueryParameters {
    typealias Route = RoutePermissions.Route

    /// The parameters each listed route takes.
    static let table: [Route: Set<String>] = {
        let bundleID: Set<String> = ["bundle_id"]
        let audit: Set<String> = ["since", "key", "limit", "before"]
        var table: [Route: Set<String>] = [
            Route(.get, "/v1/accounts/{account_id}/entitlements"): ["at"],
            Route(.get, "/v1/accounts/{account_id}/grants"): bundleID,
            Route(.delete, "/v1/accounts/{account_id}/grants/{grant_id}"): bundleID,
            Route(.get, "/v1/accounts/{account_id}/aliases"): bundleID,
            Route(.delete, "/v1/accounts/{account_id}"): bundleID,
            // Every report's options: one a report does not take is refused by the report itself (400
            // `invalid_argument`, "the churn report does not take 'limit'"), as the `report` command refuses it.
            Route(.get, "/v1/admin/reports/{name}"): ReportRequest.optionNames.union(["format"]),
            Route(.get, "/v1/admin/reports/{name}/{id}"): ReportRequest.optionNames.union(["format"]),
            Route(.get, "/v1/admin/audit"): audit,
            Route(.get, "/admin/audit"): audit,
            Route(.get, "/admin"): ["q"],
            Route(.get, "/admin/revenue"): RevenuePageQuery.parameters,
            Route(.get, "/v1/admin/webhooks"): ["bundle_id", "include_removed"],
            Route(.get, "/v1/admin/webhooks/{id}/deliveries"): ["state", "limit"],
            Route(.post, "/v1/admin/lookup/order/{id}"): bundleID,
            Route(.post, "/v1/admin/lookup/transaction/{id}"): bundleID,
        ]
        // Every lookup, a store's own (`/v1/admin/lookup/{store}/{id}`: Stripe's, and those `StoreSupportID`s add)
        // included.
        let lookups = ["order", "transaction", "token", "account", "purchase-token", "app-transaction"]
        for lookup in lookups + Store.allCases.map(\.rawValue) {
            table[Route(.get, "/v1/admin/lookup/\(lookup)/{id}")] = bundleID
        }
        return table
    }()

    /// The parameters a request of `method` on `route` (normalized as `RoutePermissions.normalized`) takes.
    static func allowed(_ method: HTTPRequest.Method, _ route: String) -> Set<String> {
        table[Route(method == .head ? .get : method, route)] ?? []
    }

    /// Throws 400 `unknown_parameter` for the first of `names` (a query's, in order) that `allowed` does not hold,
    /// naming it (at most 64 characters of it, as sent) and the parameters the route takes.
    static func check(_ names: some Sequence<Substring>, allowed: Set<String>) throws {
        for name in names where !allowed.contains(String(name)) {
            let takes =
                allowed.isEmpty
                ? "this route takes no query parameters"
                : "this route takes " + allowed.sorted().joined(separator: ", ")
            throw APIError.badRequest(.unknownParameter, "unknown parameter '\(name.prefix(64))': \(takes)")
        }
    }
}

/// Refuses a query parameter the route does not take (`RouteQueryParameters`) with 400 `unknown_parameter`, before
/// the handler reads the request. In every group after the key check, so a request without a valid key is
/// answered 401 whatever its query. A request without a query (the usual read) costs one optional test.
struct QueryParameterMiddleware: RouterMiddleware {
    typealias Context = SubLedgerRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        if let query = request.uri.query, !query.isEmpty {
            let route = RoutePermissions.normalized(context.endpointPath ?? request.uri.path)
            try RouteQueryParameters.check(
                request.uri.queryParameters.lazy.map(\.key),
                allowed: RouteQueryParameters.allowed(request.method, route))
        }
        return try await next(request, context)
    }
}
