import Foundation
import Hummingbird
import SubLedgerUseCases

/// Requires `Authorization: Bearer <key>` with a valid key and stores it in the context; whether the key may call
/// the route is `AuthorizationMiddleware`'s to say, after it.
struct APIKeyMiddleware: RouterMiddleware {
    typealias Context = SubLedgerRequestContext
    let keys: APIKeys

    /// Also accept the key as the password of HTTP Basic authentication (for the admin page in a browser).
    var acceptsBasic = false

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        guard let secret = presentedKey(request.headers[.authorization]) else {
            var error = APIError(
                .unauthorized, code: .unauthorized, message: "send the API key as 'Authorization: Bearer <key>'")
            error.challenge = acceptsBasic ? Self.basicChallenge : Self.bearerChallenge
            throw error
        }
        guard let key = try await keys.authenticate(secret) else {
            var error = APIError(.unauthorized, code: .invalidAPIKey, message: "the API key is unknown or revoked")
            error.challenge = acceptsBasic ? Self.basicChallenge : Self.bearerChallenge + ", error=\"invalid_token\""
            throw error
        }
        var context = context
        context.apiKey = key
        return try await next(request, context)
    }

    /// The challenge of the API's 401 answers (RFC 6750).
    static let bearerChallenge = "Bearer realm=\"SubLedger\""
    /// The challenge of the admin page's 401 answers, so a browser asks for the key as a password (RFC 7617).
    static let basicChallenge = "Basic realm=\"SubLedger admin\", charset=\"UTF-8\""

    /// `text` without the whitespace `CharacterSet.whitespaces` names (tab and the space separators) at either
    /// end, without Foundation: every authenticated request trims its key.
    static func trimmingWhitespace(_ text: Substring.UnicodeScalarView) -> String {
        func isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
            scalar == " " || scalar == "\t"
                || (scalar.value > 0x7F && scalar.properties.generalCategory == .spaceSeparator)
        }
        guard let first = text.firstIndex(where: { !isWhitespace($0) }),
            let last = text.lastIndex(where: { !isWhitespace($0) })
        else { return "" }
        return String(text[first...last])
    }

    /// The secret an `Authorization` header presents in the forms this middleware takes.
    func presentedKey(_ header: String?) -> String? {
        Self.presentedKey(header, acceptsBasic: acceptsBasic)
    }

    static func presentedKey(_ header: String?, acceptsBasic: Bool) -> String? {
        guard let header else { return nil }
        if header.hasPrefix("Bearer ") {
            return trimmingWhitespace(header.unicodeScalars.dropFirst("Bearer ".count))
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
