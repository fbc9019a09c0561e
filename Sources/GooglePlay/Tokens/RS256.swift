import Crypto
import Foundation
import _CryptoExtras

/// RS256 (RSASSA-PKCS1-v1_5 with SHA-256), the one JWT algorithm Google uses for Pub/Sub push tokens and
/// service-account assertions.
public enum RS256 {
    /// Whether `signature` is `key`'s RS256 signature of `input`.
    public static func isValid(signature: Data, of input: Data, by key: _RSA.Signing.PublicKey) -> Bool {
        key.isValidSignature(
            _RSA.Signing.RSASignature(rawRepresentation: signature), for: SHA256.hash(data: input),
            padding: .insecurePKCS1v1_5)
    }

    /// A compact JWT: `header` and `claims` as JSON, signed with `key`.
    public static func sign(
        header: CompactJWT.Header, claims: some Encodable, with key: _RSA.Signing.PrivateKey
    ) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let input = Base64URL.encode(try encoder.encode(header)) + "." + Base64URL.encode(try encoder.encode(claims))
        let signature = try key.signature(for: SHA256.hash(data: Data(input.utf8)), padding: .insecurePKCS1v1_5)
        return input + "." + Base64URL.encode(signature.rawRepresentation)
    }
}
