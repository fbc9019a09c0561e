/// Why an offer signature could not be made, with a stable code. Messages never contain the key.
public struct OfferSigningError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kinds of failure, each with its stable code.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// The configured key is not a PKCS#8 PEM P-256 private key (Apple's `.p8` In-App Purchase key).
        case invalidKey = "offer_key_invalid"
        /// The key identifier or issuer id is empty or not printable ASCII.
        case invalidKeyIdentity = "offer_key_identity_invalid"
        /// Encoding or signing failed.
        case signingFailed = "offer_signing_failed"
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
