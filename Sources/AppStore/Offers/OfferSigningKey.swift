import Crypto
import Foundation

/// An app's In-App Purchase key, as Apple's offer signatures use it: the `.p8` private key, its key id and the
/// issuer id, for one bundle id.
///
/// It is the same kind of key the App Store Server API is called with, so SubLedger keeps one per app, in the
/// catalog (`server_api`). Pure: signing takes the nonce and the time as arguments.
public struct OfferSigningKey: Sendable {
    /// The app's bundle id (`appBundleID` in StoreKit 1, `bid` in the JWS).
    public let bundleID: String
    /// The App Store Connect issuer id (`iss` in the JWS).
    public let issuerID: String
    /// The key's identifier (`keyIdentifier` in StoreKit 1, `kid` in the JWS header).
    public let keyID: String
    let privateKey: P256.Signing.PrivateKey

    /// Creates a key from Apple's `.p8` file (PKCS#8 PEM, P-256).
    public init(bundleID: String, issuerID: String, keyID: String, privateKeyPEM: String) throws(OfferSigningError) {
        guard Self.isPrintableIdentity(keyID), Self.isPrintableIdentity(issuerID) else {
            throw OfferSigningError(
                .invalidKeyIdentity, "the key id and issuer id must be 1 to 128 printable ASCII characters")
        }
        do {
            privateKey = try P256.Signing.PrivateKey(pemRepresentation: privateKeyPEM)
        } catch {
            throw OfferSigningError(.invalidKey, "the In-App Purchase key is not a P-256 private key in PEM form (.p8)")
        }
        self.bundleID = bundleID
        self.issuerID = issuerID
        self.keyID = keyID
    }

    /// The public half, which verifies every signature this key makes.
    public var publicKey: P256.Signing.PublicKey { privateKey.publicKey }

    // A key id is pasted from App Store Connect; a separator or control character in it would change the
    // StoreKit 1 message's fields, so only printable ASCII without U+2063 is accepted.
    private static func isPrintableIdentity(_ value: String) -> Bool {
        !value.isEmpty && value.utf8.count <= 128 && value.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
    }
}
