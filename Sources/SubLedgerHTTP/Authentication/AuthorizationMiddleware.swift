import Foundation
import Hummingbird
import Logging
import SubLedgerCore
import SubLedgerUseCases

/// Lets the authenticated key (`APIKeyMiddleware`, before it) through when its scope has the permission the
/// route needs (`RoutePermissions`), else answers 403 `wrong_key_scope`; and writes what an admin or support key
/// did to the audit log (`AuditLog`): every request but GET and HEAD, and reads of customers' data (lookups, the
/// admin page's search) and of webhook endpoints, refused ones included. An entry names the route's parameters,
/// the app the request named (`bundle_id`, in its query or its JSON body) and, for a search, what was searched for.
///
/// The entry is appended right after the answer is decided, in its own transaction: the actions behind these
/// routes commit in transactions of the layers below (webhook endpoints, lookups that apply), so an entry and
/// its action are two commits, the entry second. An entry that cannot be written is logged as an error, and
/// the answer stands (the action already happened).
struct AuthorizationMiddleware: RouterMiddleware {
    typealias Context = SubLedgerRequestContext
    /// What a route of this group needs when `RoutePermissions` does not list it.
    let fallback: Permission
    /// Where audited requests are written; `nil` for groups no audited key can call.
    let audit: AuditLog?
    let now: @Sendable () -> Instant

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let key = try context.requireKey()
        let route = RoutePermissions.normalized(context.endpointPath ?? request.uri.path)
        let required = RoutePermissions.required(request.method, route, fallback: fallback)
        guard let audit, key.scope.isAudited,
            Self.isAudited(request.method, required) || Self.searchedFor(request, route) != nil
        else {
            try Self.authorize(key, required)
            return try await next(request, context)
        }
        var request = request
        var named: String?
        do {
            try Self.authorize(key, required)
            named = try await Self.bundleIDInBody(of: &request, context)
            // Through the same mapping the outermost ErrorMiddleware uses, so a refusal is recorded with the
            // status the client gets.
            let response = try await ErrorMiddleware<Context>().handle(request, context: context, next: next)
            await record(
                request, context, key: key, route: route, status: response.status.code, bundleID: named,
                erasedAs: response.headers[ErasuresController.pseudonymHeader], in: audit)
            return response
        } catch let error as APIError {
            await record(
                request, context, key: key, route: route, status: error.status.code, bundleID: named, in: audit)
            throw error
        }
    }

    /// What the admin page's search (`GET /admin?q=`) asks for, trimmed as the page trims it: a read of a
    /// customer's data like a lookup, so audited though the page itself is not. `nil` for any other request.
    static func searchedFor(_ request: Request, _ route: String) -> String? {
        guard request.method == .get || request.method == .head, route == "/admin",
            let query = request.uri.queryParameters.get("q")?.trimmingCharacters(in: .whitespaces), !query.isEmpty
        else { return nil }
        return query
    }

    /// The `bundle_id` a change's JSON body names (a grant, a merge), read before the route reads it: the body is
    /// collected once (`Request.collectBody`, within the context's limit) and handed on as collected. A body that
    /// is not a JSON object with a string `bundle_id` names none (the route refuses it as it would); one past the
    /// limit is refused here as the route would refuse it (413 `body_too_large`), and recorded so.
    static func bundleIDInBody(of request: inout Request, _ context: Context) async throws -> String? {
        guard request.method != .get, request.method != .head else { return nil }
        let buffer = try await request.collectBody(context: context)
        request.body = .init(buffer: buffer)
        struct Named: Decodable { var bundle_id: String? }
        return try? JSONDecoder().decode(Named.self, from: Data(buffer: buffer)).bundle_id
    }

    /// Whether a request of `method` on `route` with `key` is let through with no audit entry to write: what the
    /// event loop's entitlement read asks before it answers alone (else the router answers, refusal or audit).
    func letsThroughUnaudited(_ key: AuthenticatedKey, _ method: HTTPRequest.Method, _ route: String) -> Bool {
        let required = RoutePermissions.required(method, RoutePermissions.normalized(route), fallback: fallback)
        guard required.contains(where: key.may) else { return false }
        return audit == nil || !key.scope.isAudited || !Self.isAudited(method, required)
    }

    static func authorize(_ key: AuthenticatedKey, _ required: Set<Permission>) throws {
        guard required.contains(where: key.may) else {
            throw APIError(
                .forbidden, code: .wrongKeyScope,
                message: "a \(key.scope.rawValue) key may not call this route; it needs "
                    + Self.scopes(allowedBy: required))
        }
    }

    /// "an app key", "an admin or support key": the scopes that may call a route, for the refusal's message.
    static func scopes(allowedBy required: Set<Permission>) -> String {
        let names = AuthenticatedKey.Scope.allCases.filter { !$0.permissions.isDisjoint(with: required) }
            .map(\.rawValue)
        let listed = names.count <= 1 ? names.joined() : names.dropLast().joined(separator: ", ") + " or " + names.last!
        return (listed.first.map { "aeiou".contains($0) } == true ? "an " : "a ") + listed + " key"
    }

    /// Changes, and reads of what is a customer's or a secret's.
    static func isAudited(_ method: HTTPRequest.Method, _ required: Set<Permission>) -> Bool {
        (method != .get && method != .head) || !required.isDisjoint(with: [.customerLookup, .webhooks])
    }

    private func record(
        _ request: Request, _ context: Context, key: AuthenticatedKey, route: String, status: Int,
        bundleID named: String? = nil, erasedAs pseudonym: String? = nil, in audit: AuditLog
    ) async {
        var target: [String: String] = [:]
        // Each parameter as the handler read it, percent-decoded (`PathSegment`): `x%40example.com` is recorded as
        // `x@example.com`, the one form an erasure of that id finds and rewrites. One that cannot be decoded (the
        // request was refused 400) is kept as sent.
        for (name, value) in context.parameters {
            let decoded = (try? PathSegment.decode(value).get()) ?? String(value)
            target[String(name)] = String(decoded.prefix(256))
        }
        // An erasure is recorded under the pseudonym it gave the account (the id is stored nowhere after it), and
        // a refused one without the id it named: `(erased)` when the id was erased before, as for the requests
        // below.
        if request.method == .delete, route == "/v1/accounts/{account_id}" {
            target["account_id"] = pseudonym ?? (status == 410 ? "(erased)" : "(not recorded)")
        } else if status == 410, target["account_id"] != nil {
            // Refused as erased (`account_erased`: a grant to it, a merge into it, ...): the id, erased, is not
            // written back into the log.
            target["account_id"] = "(erased)"
        }
        let inQuery: String? = request.uri.queryParameters.get("bundle_id").map { String($0) }
        if let bundleID = inQuery ?? named {
            target["bundle_id"] = String(bundleID.prefix(256))
        }
        if let query = Self.searchedFor(request, route) {
            target["q"] = String(query.prefix(256))
        }
        let entry = AuditLog.Entry(
            occurredAt: now(), keyID: key.keyID, keyName: key.name, scope: key.scope.rawValue,
            method: request.method.rawValue, route: route, target: target, status: status,
            clientAddress: context.remoteAddress?.ipAddress, requestID: context.id)
        do {
            try await audit.append(entry)
        } catch {
            context.logger.error(
                "an audit entry could not be written",
                metadata: ["error": "\(error)", "key_id": "\(key.keyID)", "route": "\(route)", "status": "\(status)"])
        }
    }
}
