import Foundation
import SubLedgerCore
import _CryptoExtras

/// The OAuth2 JWT-bearer grant (RFC 7523) as Google's token endpoint takes it: a form body with `grant_type`
/// and `assertion`, answered with an access token.
public enum OAuthTokenExchange {
    /// `urn:ietf:params:oauth:grant-type:jwt-bearer`.
    public static let grantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"
    /// The largest form body read.
    public static let maximumBodyBytes = 32 * 1024

    /// The `application/x-www-form-urlencoded` body exchanging `assertion`.
    public static func formBody(assertion: String) -> String {
        "grant_type=" + percentEncode(grantType) + "&assertion=" + percentEncode(assertion)
    }

    /// The fields of a form body (each at most once; later repeats refused), percent- and `+`-decoded.
    public static func parseForm(_ body: Data) -> [String: String]? {
        guard body.count <= maximumBodyBytes, let text = String(data: body, encoding: .utf8) else { return nil }
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2,
                let name = parts[0].replacingOccurrences(of: "+", with: " ").removingPercentEncoding,
                let value = parts[1].replacingOccurrences(of: "+", with: " ").removingPercentEncoding,
                fields[name] == nil, !value.unicodeScalars.contains(where: { $0.value == 0 })
            else { return nil }
            fields[name] = value
        }
        return fields
    }

    private static func percentEncode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics.intersection(
            CharacterSet(charactersIn: Unicode.Scalar(0)..<Unicode.Scalar(128)))
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}

/// The token endpoint's answer: `{"access_token", "expires_in", "token_type": "Bearer"}`.
public struct OAuthTokenResponse: Codable, Hashable, Sendable {
    public var accessToken: String
    /// Seconds the token lives (3599 from Google).
    public var expiresIn: Int64
    public var tokenType: String

    public init(accessToken: String, expiresIn: Int64, tokenType: String = "Bearer") {
        self.accessToken = accessToken
        self.expiresIn = expiresIn
        self.tokenType = tokenType
    }

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case expiresIn = "expires_in"
        case tokenType = "token_type"
    }
}

/// The token endpoint's refusal: `{"error": "invalid_grant", "error_description": "…"}` (RFC 6749 §5.2).
public struct OAuthErrorResponse: Codable, Hashable, Sendable {
    public var error: String
    public var errorDescription: String?

    public init(error: String, errorDescription: String?) {
        self.error = error
        self.errorDescription = errorDescription
    }

    enum CodingKeys: String, CodingKey {
        case error
        case errorDescription = "error_description"
    }
}

/// Checks a service account's assertion as Google's token endpoint does: RS256 under the account's public key,
/// `iss` the account, `aud` the token URI, a `scope`, `iat` not in the future and `exp` not passed (both with
/// a leeway), and a lifetime of at most an hour.
public struct ServiceAccountAssertionVerifier: Sendable {
    /// The account's email.
    public var clientEmail: String
    /// The account's public key, by its `private_key_id`.
    public var keys: [String: _RSA.Signing.PublicKey]
    /// The accepted `aud` values (the token URI).
    public var audiences: Set<String>
    /// Clock skew allowed, in seconds. Default: 60.
    public var leewaySeconds: Int64

    public init(
        clientEmail: String, keys: [String: _RSA.Signing.PublicKey], audiences: Set<String>, leewaySeconds: Int64 = 60
    ) {
        self.clientEmail = clientEmail
        self.keys = keys
        self.audiences = audiences
        self.leewaySeconds = max(0, min(leewaySeconds, 3600))
    }

    /// The scopes granted by an accepted assertion.
    public func verify(_ assertion: String, now: Instant) throws(JWTVerificationError) -> [String] {
        let jwt = try CompactJWT(assertion)
        guard jwt.header.alg == "RS256" else { throw JWTVerificationError(.unsupportedAlgorithm) }
        guard let kid = jwt.header.kid, let key = keys[kid] else { throw JWTVerificationError(.unknownKey) }
        guard RS256.isValid(signature: jwt.signature, of: jwt.signingInput, by: key) else {
            throw JWTVerificationError(.invalidSignature)
        }
        let claims: Claims
        do {
            claims = try JSONDecoder().decode(Claims.self, from: jwt.payload)
        } catch {
            throw JWTVerificationError(.malformedToken, detail: "claims are not the expected JSON")
        }
        guard claims.iss == clientEmail else { throw JWTVerificationError(.invalidIssuer) }
        guard let audience = claims.aud?.values, !audiences.isDisjoint(with: audience) else {
            throw JWTVerificationError(.invalidAudience)
        }
        let nowSeconds = now.millisecondsSince1970 / 1000
        guard let exp = claims.exp?.seconds, nowSeconds <= exp.saturatingAdding(leewaySeconds) else {
            throw JWTVerificationError(.expired)
        }
        guard let iat = claims.iat?.seconds, iat <= nowSeconds.saturatingAdding(leewaySeconds) else {
            throw JWTVerificationError(.notYetValid)
        }
        let (lifetime, overflow) = exp.subtractingReportingOverflow(iat)
        guard !overflow, lifetime >= 0, lifetime <= 3600 else { throw JWTVerificationError(.lifetimeTooLong) }
        let scopes = (claims.scope ?? "").split(separator: " ").map(String.init)
        guard !scopes.isEmpty, scopes.count <= 32 else { throw JWTVerificationError(.invalidScope) }
        return scopes
    }

    private struct Claims: Decodable {
        var iss: String?
        var aud: AudienceClaim?
        var scope: String?
        var exp: NumericDate?
        var iat: NumericDate?
    }
}
