import Crypto
import Foundation
import GooglePlay
import SubLedgerCore
import _CryptoExtras

/// The simulator's two RSA keys: the service account it hands out (whose assertions its token endpoint
/// accepts), and Google's push-token key (whose JWKS receivers trust).
struct SimulatorKeys: Sendable {
    let serviceAccountKey: _RSA.Signing.PrivateKey
    let serviceAccountKeyID: String
    let pushKey: _RSA.Signing.PrivateKey
    let pushKeyID: String

    /// Keys from PEM text, or new ones where none is given.
    init(serviceAccountPEM: String?, pushPEM: String?) throws {
        serviceAccountKey =
            try serviceAccountPEM.map { try _RSA.Signing.PrivateKey(pemRepresentation: $0) }
            ?? _RSA.Signing.PrivateKey(keySize: .bits2048)
        pushKey =
            try pushPEM.map { try _RSA.Signing.PrivateKey(pemRepresentation: $0) }
            ?? _RSA.Signing.PrivateKey(keySize: .bits2048)
        serviceAccountKeyID = Self.keyID(serviceAccountKey.publicKey)
        pushKeyID = Self.keyID(pushKey.publicKey)
    }

    /// Google's key ids are 40 hex digits; these are the public key's SHA-256, shortened.
    static func keyID(_ key: _RSA.Signing.PublicKey) -> String {
        SHA256.hash(data: key.derRepresentation).prefix(20).map { String(format: "%02x", $0) }.joined()
    }

    /// The JWKS receivers trust for push tokens.
    var pushKeySet: JSONWebKeySet { JSONWebKeySet(keys: [pushKeyID: pushKey.publicKey]) }

    /// A Pub/Sub push token: signed now (wall time, as Google's are), valid an hour.
    func pushToken(audience: String, email: String, now: Instant) throws -> String {
        let issuedAt = now.millisecondsSince1970 / 1000
        return try RS256.sign(
            header: CompactJWT.Header(alg: "RS256", kid: pushKeyID, typ: "JWT"),
            claims: PushClaims(
                aud: audience, azp: "1000000000000000000000", email: email, email_verified: true,
                exp: issuedAt + 3600, iat: issuedAt, iss: "https://accounts.google.com", sub: "1000000000000000000000"),
            with: pushKey)
    }

    private struct PushClaims: Encodable {
        var aud: String
        var azp: String
        var email: String
        var email_verified: Bool
        var exp: Int64
        var iat: Int64
        var iss: String
        var sub: String
    }
}
