import Crypto
import Foundation
import SubLedgerCore
import Synchronization

/// Issues the ES256 bearer tokens the App Store Server API requires, reusing each until near its expiry.
///
/// Claims: `iss` issuer id, `iat`, `exp` (`lifetime` later; Apple allows at most 60 minutes), `aud`
/// `appstoreconnect-v1`, `bid` bundle id; header `alg` ES256, `kid` key id, `typ` JWT. Thread-safe.
public final class ServerAPITokenIssuer: Sendable {
    /// The App Store Connect issuer id (`iss`).
    public let issuerID: String
    /// The id of the in-app purchase key (`kid`).
    public let keyID: String
    /// The app's bundle id (`bid`).
    public let bundleID: String
    /// How long each token is valid. Default: 20 minutes.
    public let lifetime: Duration

    private let privateKey: P256.Signing.PrivateKey
    private let now: @Sendable () -> Instant
    private let cached = Mutex<(token: String, expiresAt: Instant)?>(nil)

    /// A token is replaced when less than this is left of its lifetime.
    private static let renewalMargin: Int64 = 5 * 60 * 1000

    /// Creates an issuer from the `.p8` key Apple issues (PKCS#8 PEM, P-256).
    public init(
        issuerID: String,
        keyID: String,
        bundleID: String,
        privateKeyPEM: String,
        lifetime: Duration = .seconds(20 * 60),
        now: @escaping @Sendable () -> Instant = { Instant.systemNow() }
    ) throws(AppStoreServerAPIError) {
        guard lifetime > .seconds(60 * 6), lifetime <= .seconds(60 * 60) else {
            throw AppStoreServerAPIError(.invalidConfiguration)
        }
        do {
            self.privateKey = try P256.Signing.PrivateKey(pemRepresentation: privateKeyPEM)
        } catch {
            throw AppStoreServerAPIError(.invalidConfiguration)
        }
        self.issuerID = issuerID
        self.keyID = keyID
        self.bundleID = bundleID
        self.lifetime = lifetime
        self.now = now
    }

    private struct Header: Encodable {
        var alg = "ES256"
        var kid: String
        var typ = "JWT"
    }

    private struct Claims: Encodable {
        var iss: String
        var iat: Int64
        var exp: Int64
        var aud = "appstoreconnect-v1"
        var bid: String
    }

    /// A valid token: the cached one while more than five minutes of it remain, else a new one.
    public func token() throws(AppStoreServerAPIError) -> String {
        let current = now()
        if let cached = cached.withLock({ $0 }),
            cached.expiresAt.millisecondsSince1970 - current.millisecondsSince1970 > Self.renewalMargin
        {
            return cached.token
        }
        let issuedAt = current.millisecondsSince1970 / 1000
        let lifetimeSeconds = lifetime.components.seconds
        let claims = Claims(iss: issuerID, iat: issuedAt, exp: issuedAt + lifetimeSeconds, bid: bundleID)
        let token: String
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let header = Base64URL.encode(try encoder.encode(Header(kid: keyID)))
            let payload = Base64URL.encode(try encoder.encode(claims))
            let signingInput = Data("\(header).\(payload)".utf8)
            let signature = try privateKey.signature(for: signingInput)
            token = "\(header).\(payload).\(Base64URL.encode(signature.rawRepresentation))"
        } catch {
            throw AppStoreServerAPIError(.invalidConfiguration)
        }
        let expiresAt = Instant(millisecondsSince1970: (issuedAt + lifetimeSeconds) * 1000)
        cached.withLock { $0 = (token, expiresAt) }
        return token
    }
}
