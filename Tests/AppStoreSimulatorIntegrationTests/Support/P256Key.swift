import Crypto

/// Fresh keys for negative tests.
enum P256Key {
    /// A new P-256 private key as PKCS#8 PEM.
    static func fresh() -> String { P256.Signing.PrivateKey().pemRepresentation }
}
