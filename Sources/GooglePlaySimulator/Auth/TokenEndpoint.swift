import Foundation
import GooglePlay
import SubLedgerCore

/// `POST /token`: Google's OAuth2 token endpoint for the JWT-bearer grant. It accepts assertions of the
/// simulator's service account (signed with its key, `aud` this endpoint or Google's own token URI, the
/// Android Publisher scope) and answers an access token valid for an hour.
struct TokenEndpoint: Sendable {
    let engine: SimulatorEngine
    /// The token URIs an assertion may name as `aud`.
    let audiences: Set<String>

    func respond(body: Data) -> GoogleAnswer {
        guard let form = OAuthTokenExchange.parseForm(body) else {
            return refusal("invalid_request", "The request body is not a form.")
        }
        guard form["grant_type"] == OAuthTokenExchange.grantType else {
            return refusal("unsupported_grant_type", "Invalid grant_type: \(form["grant_type"] ?? "")")
        }
        guard let assertion = form["assertion"] else {
            return refusal("invalid_request", "Missing required parameter: assertion")
        }
        let verifier = ServiceAccountAssertionVerifier(
            clientEmail: engine.serviceAccountEmail,
            keys: [engine.keys.serviceAccountKeyID: engine.keys.serviceAccountKey.publicKey], audiences: audiences)
        let now = engine.wallClock()
        let scopes: [String]
        do throws(JWTVerificationError) {
            scopes = try verifier.verify(assertion, now: now)
        } catch {
            switch error.code {
            case .invalidSignature, .unknownKey: return refusal("invalid_grant", "Invalid JWT Signature.")
            case .expired, .notYetValid, .lifetimeTooLong:
                return refusal(
                    "invalid_grant",
                    "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe.")
            case .invalidIssuer: return refusal("invalid_grant", "Invalid email or User ID")
            case .invalidAudience: return refusal("invalid_grant", "Invalid JWT: Failed audience check.")
            case .invalidScope: return refusal("invalid_scope", "Empty or missing scope not allowed.")
            default: return refusal("invalid_grant", "Invalid JWT.")
            }
        }
        guard scopes.contains(ServiceAccountKey.androidPublisherScope) else {
            return refusal("invalid_scope", "The scope does not grant the Android Publisher API.")
        }
        return .json(
            OAuthTokenResponse(
                accessToken: engine.accessTokens.issue(now: now), expiresIn: AccessTokens.lifetimeSeconds))
    }

    private func refusal(_ error: String, _ description: String) -> GoogleAnswer {
        .json(OAuthErrorResponse(error: error, errorDescription: description), status: 400)
    }
}
