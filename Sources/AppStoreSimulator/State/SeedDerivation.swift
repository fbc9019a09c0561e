import Crypto

/// Deterministic byte material derived from the seed and a purpose label (keys, app ids).
enum SeedDerivation {
    /// SHA-256 of `seed || label`, iterated `round` times so a caller can retry for a usable key.
    static func bytes(seed: UInt64, label: String, round: Int = 0) -> [UInt8] {
        var input = withUnsafeBytes(of: seed.bigEndian) { Array($0) } + Array(label.utf8)
        input += withUnsafeBytes(of: UInt32(round).bigEndian) { Array($0) }
        return Array(SHA256.hash(data: input))
    }

    /// A P-256 signing key derived from the seed and label.
    static func signingKey(seed: UInt64, label: String) -> P256.Signing.PrivateKey {
        for round in 0..<64 {
            if let key = try? P256.Signing.PrivateKey(rawRepresentation: bytes(seed: seed, label: label, round: round))
            {
                return key
            }
        }
        return P256.Signing.PrivateKey()
    }
}
