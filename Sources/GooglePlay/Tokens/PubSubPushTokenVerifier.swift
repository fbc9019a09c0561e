import Foundation
import SubLedgerCore
import _CryptoExtras

/// Verifies the OIDC token Pub/Sub sends with an authenticated push (`Authorization: Bearer <JWT>`): RS256 under
/// one of Google's keys (by `kid`), issued by Google, for the configured audience, within its lifetime, and for
/// the configured service account with a verified email.
///
/// Time is an argument: `verify(_:now:)` takes the instant to check `exp`, `iat` and `nbf` against.
public struct PubSubPushTokenVerifier: Sendable {
    /// What a token must say.
    public struct Configuration: Sendable {
        /// The `aud` the push subscription was configured with (by default its push endpoint's URL).
        public var audience: String
        /// The service account the push subscription authenticates as (`email`).
        public var serviceAccountEmail: String
        /// Accepted `iss` values. Default: `accounts.google.com` and `https://accounts.google.com`.
        public var issuers: Set<String>
        /// Clock skew allowed on `exp`, `iat` and `nbf`, in seconds. Default: 60.
        public var leewaySeconds: Int64

        public init(
            audience: String, serviceAccountEmail: String,
            issuers: Set<String> = ["accounts.google.com", "https://accounts.google.com"], leewaySeconds: Int64 = 60
        ) {
            self.audience = audience
            self.serviceAccountEmail = serviceAccountEmail
            self.issuers = issuers
            self.leewaySeconds = max(0, min(leewaySeconds, 3600))
        }
    }

    /// The claims of an accepted token.
    public struct VerifiedClaims: Hashable, Sendable {
        public var issuer: String
        public var audience: String
        public var email: String
        public var subject: String?
        public var issuedAt: Instant
        public var expiresAt: Instant
    }

    public let configuration: Configuration
    public let keys: JSONWebKeySet

    public init(configuration: Configuration, keys: JSONWebKeySet) {
        self.configuration = configuration
        self.keys = keys
    }

    /// Verifies the token of an `Authorization` header value.
    public func verify(authorization: String?, now: Instant) throws(JWTVerificationError) -> VerifiedClaims {
        try verify(try CompactJWT.bearerToken(fromAuthorization: authorization), now: now)
    }

    /// Verifies a compact token; each failed check throws its own code, checked in this order: form, algorithm,
    /// key, signature, issuer, audience, expiry, not-before, email, email verified.
    public func verify(_ token: String, now: Instant) throws(JWTVerificationError) -> VerifiedClaims {
        let jwt = try CompactJWT(token)
        guard jwt.header.alg == "RS256" else { throw JWTVerificationError(.unsupportedAlgorithm) }
        guard let kid = jwt.header.kid, let key = keys.keys[kid] else { throw JWTVerificationError(.unknownKey) }
        guard RS256.isValid(signature: jwt.signature, of: jwt.signingInput, by: key) else {
            throw JWTVerificationError(.invalidSignature)
        }
        let claims: Claims
        do {
            claims = try JSONDecoder().decode(Claims.self, from: jwt.payload)
        } catch {
            throw JWTVerificationError(.malformedToken, detail: "claims are not the expected JSON")
        }
        guard let issuer = claims.iss, configuration.issuers.contains(issuer) else {
            throw JWTVerificationError(.invalidIssuer)
        }
        guard let audience = claims.aud?.values, audience.contains(configuration.audience) else {
            throw JWTVerificationError(.invalidAudience)
        }
        let nowSeconds = now.millisecondsSince1970 / 1000
        let leeway = configuration.leewaySeconds
        guard let exp = claims.exp?.seconds, nowSeconds <= exp.saturatingAdding(leeway) else {
            throw JWTVerificationError(.expired)
        }
        guard let iat = claims.iat?.seconds, iat <= nowSeconds.saturatingAdding(leeway) else {
            throw JWTVerificationError(.notYetValid)
        }
        if let nbf = claims.nbf?.seconds, nbf > nowSeconds.saturatingAdding(leeway) {
            throw JWTVerificationError(.notYetValid)
        }
        guard let email = claims.email, email == configuration.serviceAccountEmail else {
            throw JWTVerificationError(.invalidEmail)
        }
        guard claims.email_verified?.value == true else { throw JWTVerificationError(.emailNotVerified) }
        return VerifiedClaims(
            issuer: issuer, audience: configuration.audience, email: email, subject: claims.sub,
            issuedAt: Instant(millisecondsSince1970: iat.saturatingMultiplied(by: 1000)),
            expiresAt: Instant(millisecondsSince1970: exp.saturatingMultiplied(by: 1000)))
    }

    private struct Claims: Decodable {
        var iss: String?
        var aud: AudienceClaim?
        var exp: NumericDate?
        var iat: NumericDate?
        var nbf: NumericDate?
        var email: String?
        var email_verified: FlexibleBool?
        var sub: String?
    }
}

/// `email_verified`: Google writes a boolean; some issuers write `"true"`.
struct FlexibleBool: Decodable {
    var value: Bool

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let bool = try? container.decode(Bool.self) {
            value = bool
        } else {
            value = try container.decode(String.self) == "true"
        }
    }
}
