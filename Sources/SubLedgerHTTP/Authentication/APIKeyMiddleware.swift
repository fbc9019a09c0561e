import Foundation
import Hummingbird
import SubLedgerUseCases

/// Requires `Authorization: Bearer <key>` with a valid key (of `scope` when given) and stores it in the context.
struct APIKeyMiddleware: RouterMiddleware {
    typealias Context = SubLedgerRequestContext
    let keys: APIKeys
    let requiredScope: AuthenticatedKey.Scope

    /// Also accept the key as the password of HTTP Basic authentication (for the admin page in a browser).
    var acceptsBasic = false

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        guard let secret = Self.presentedKey(request.headers[.authorization], acceptsBasic: acceptsBasic) else {
            var error = APIError(
                .unauthorized, code: "unauthorized", message: "send the API key as 'Authorization: Bearer <key>'")
            error.challenge = acceptsBasic ? Self.basicChallenge : Self.bearerChallenge
            throw error
        }
        guard let key = try await keys.authenticate(secret) else {
            var error = APIError(.unauthorized, code: "invalid_api_key", message: "the API key is unknown or revoked")
            error.challenge = acceptsBasic ? Self.basicChallenge : Self.bearerChallenge + ", error=\"invalid_token\""
            throw error
        }
        guard key.scope == requiredScope else {
            throw APIError(
                .forbidden, code: "wrong_key_scope", message: "this route needs an \(requiredScope.rawValue) key")
        }
        var context = context
        context.apiKey = key
        return try await next(request, context)
    }

    /// The challenge of the API's 401 answers (RFC 6750).
    static let bearerChallenge = "Bearer realm=\"SubLedger\""
    /// The challenge of the admin page's 401 answers, so a browser asks for the key as a password (RFC 7617).
    static let basicChallenge = "Basic realm=\"SubLedger admin\", charset=\"UTF-8\""

    static func presentedKey(_ header: String?, acceptsBasic: Bool) -> String? {
        guard let header else { return nil }
        if header.hasPrefix("Bearer ") {
            return String(header.dropFirst("Bearer ".count)).trimmingCharacters(in: .whitespaces)
        }
        if acceptsBasic, header.hasPrefix("Basic "),
            let decoded = Data(
                base64Encoded: String(header.dropFirst("Basic ".count)).trimmingCharacters(in: .whitespaces)),
            let text = String(data: decoded, encoding: .utf8), let colon = text.firstIndex(of: ":")
        {
            return String(text[text.index(after: colon)...])
        }
        return nil
    }
}
