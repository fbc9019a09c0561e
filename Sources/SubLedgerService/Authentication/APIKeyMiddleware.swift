import Hummingbird

/// Requires `Authorization: Bearer <key>` with a valid key (of `scope` when given) and stores it in the context.
struct APIKeyMiddleware: RouterMiddleware {
    typealias Context = SubLedgerRequestContext
    let keys: APIKeys
    let requiredScope: AuthenticatedKey.Scope

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer ") else {
            throw APIError(.unauthorized, code: "unauthorized", message: "send the API key as 'Authorization: Bearer <key>'")
        }
        let secret = String(header.dropFirst("Bearer ".count)).trimmingCharacters(in: .whitespaces)
        guard let key = try await keys.authenticate(secret) else {
            throw APIError(.unauthorized, code: "invalid_api_key", message: "the API key is unknown or revoked")
        }
        guard key.scope == requiredScope else {
            throw APIError(.forbidden, code: "wrong_key_scope", message: "this route needs an \(requiredScope.rawValue) key")
        }
        var context = context
        context.apiKey = key
        return try await next(request, context)
    }
}
