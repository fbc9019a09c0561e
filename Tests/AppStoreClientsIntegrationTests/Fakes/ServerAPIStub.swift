import AppStore
import Crypto
import Foundation
import HTTPTestSupport
import SubLedgerCore
import Synchronization

/// Checks App Store Server API bearer tokens the way Apple does: ES256 over header.claims with the key's
/// public half, `kid`, `typ`, `aud`, `iss`, `bid`, and a lifetime of at most an hour.
struct ServerAPITokenChecker: Sendable {
    let publicKey: P256.Signing.PublicKey
    let issuerID: String
    let keyID: String
    let bundleID: String

    struct Header: Decodable {
        var alg: String
        var kid: String
        var typ: String
    }

    struct Claims: Decodable {
        var iss: String
        var iat: Int64
        var exp: Int64
        var aud: String
        var bid: String
    }

    /// `nil` when the request's token is acceptable, else why not.
    func problem(with request: StubRequest) -> String? {
        guard let authorization = request.header("Authorization"), authorization.hasPrefix("Bearer ") else {
            return "no bearer token"
        }
        let segments = authorization.dropFirst("Bearer ".count).split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3,
            let headerBytes = Base64URL.decode(segments[0]),
            let claimBytes = Base64URL.decode(segments[1]),
            let signatureBytes = Base64URL.decode(segments[2]),
            let header = try? JSONDecoder().decode(Header.self, from: headerBytes),
            let claims = try? JSONDecoder().decode(Claims.self, from: claimBytes),
            let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signatureBytes)
        else {
            return "malformed token"
        }
        guard publicKey.isValidSignature(signature, for: Data("\(segments[0]).\(segments[1])".utf8)) else {
            return "bad signature"
        }
        guard header.alg == "ES256", header.kid == keyID, header.typ == "JWT" else { return "bad header" }
        guard claims.iss == issuerID, claims.aud == "appstoreconnect-v1", claims.bid == bundleID else {
            return "bad claims"
        }
        guard claims.exp > claims.iat, claims.exp - claims.iat <= 3600 else { return "bad lifetime" }
        return nil
    }
}

/// A settable clock for token-cache tests.
final class TestClock: Sendable {
    private let current: Mutex<Int64>

    init(_ start: Int64) { current = Mutex(start) }

    func advance(milliseconds: Int64) { current.withLock { $0 += milliseconds } }

    var now: @Sendable () -> Instant { { [self] in Instant(millisecondsSince1970: current.withLock { $0 }) } }
}
