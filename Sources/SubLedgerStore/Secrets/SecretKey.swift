import Crypto
import Foundation

/// A 256-bit key that seals secrets at rest (AES-256-GCM), named by a fingerprint of itself.
///
/// The id is stored beside every ciphertext, so a ciphertext says which key opens it. Deriving the id
/// from the key (instead of letting operators name keys) means an id can never point at the wrong key.
public struct SecretKey: Sendable, CustomStringConvertible {
    /// 16 hex digits: the first 8 bytes of SHA-256 over a fixed label and the key.
    public let id: String
    let symmetricKey: SymmetricKey

    /// The key `text` (standard base64 of 32 bytes, surrounding whitespace ignored) holds.
    public init(base64 text: some StringProtocol) throws(SecretError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let bytes = Data(base64Encoded: trimmed), bytes.count == 32 else {
            throw SecretError(
                .malformedKey, "a secret key is the base64 of 32 random bytes (`subledger secrets generate-key`)")
        }
        self.init(symmetricKey: SymmetricKey(data: bytes))
    }

    init(symmetricKey: SymmetricKey) {
        self.symmetricKey = symmetricKey
        let digest = symmetricKey.withUnsafeBytes { bytes in
            SHA256.hash(data: Data("subledger secret key id\n".utf8) + Data(bytes))
        }
        id = digest.prefix(8).map { String(format: "%02x", $0) }.joined()
    }

    /// A new random key.
    public static func generate() -> SecretKey {
        SecretKey(symmetricKey: SymmetricKey(size: .bits256))
    }

    /// The key as a key file line: standard base64 of its 32 bytes.
    public var base64: String {
        symmetricKey.withUnsafeBytes { Data($0).base64EncodedString() }
    }

    /// The id only: a key that reaches a log line by accident leaks nothing.
    public var description: String { "SecretKey(\(id))" }
}
