import AppStore
import Crypto
import Foundation
import SubLedgerCore

/// Checks App Store Server API bearer tokens as Apple does: ES256 by the app's registered key, `kid`,
/// `iss`, `aud` `appstoreconnect-v1`, `bid`, `exp` not passed and at most 60 minutes after `iat`.
///
/// `iat` is optional, as it is for Apple (Apple's official clients send none): without it, `exp` must be
/// at most 60 minutes from now.
///
/// Token times are checked against the wall clock (as Apple's servers do), not the simulated clock.
struct ServerAPIAuthenticator: Sendable {
    var wallNow: @Sendable () -> Instant = { Instant.systemNow() }

    private struct Header: Decodable {
        var alg: String?
        var kid: String?
        var typ: String?
    }

    private struct Claims: Decodable {
        var iss: String?
        var iat: Int64?
        var exp: Int64?
        var aud: String?
        var bid: String?
    }

    /// The app the token authenticates, or `nil` (answer 401).
    func authenticate(authorization: String?, apps: [String: AppRecord]) -> AppRecord? {
        guard let authorization, authorization.hasPrefix("Bearer ") else { return nil }
        let token = authorization.dropFirst("Bearer ".count).trimmingCharacters(in: .whitespaces)
        let segments = token.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3,
            let headerBytes = Base64URL.decode(segments[0]),
            let claimBytes = Base64URL.decode(segments[1]),
            let signatureBytes = Base64URL.decode(segments[2]),
            let header = try? JSONDecoder().decode(Header.self, from: headerBytes),
            let claims = try? JSONDecoder().decode(Claims.self, from: claimBytes)
        else { return nil }
        guard header.alg == "ES256", header.typ == nil || header.typ == "JWT",
            let bid = claims.bid, let app = apps[bid],
            header.kid == app.description.serverAPI.keyID,
            claims.iss == app.description.serverAPI.issuerID,
            claims.aud == "appstoreconnect-v1",
            let expiresAt = claims.exp
        else { return nil }
        let now = wallNow().millisecondsSince1970 / 1000
        // Without `iat` the token's lifetime is measured from now: it can never outlast 60 minutes from now.
        let issuedAt = claims.iat ?? now
        // Subtractions of untrusted values are checked: a hostile `exp` or `iat` must not trap.
        let (lifetime, overflow) = expiresAt.subtractingReportingOverflow(issuedAt)
        guard !overflow, expiresAt > now, lifetime <= 3600, lifetime > 0, issuedAt <= now + 60 else {
            return nil
        }
        guard let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signatureBytes),
            app.publicKey.isValidSignature(signature, for: Data("\(segments[0]).\(segments[1])".utf8))
        else { return nil }
        return app
    }
}
