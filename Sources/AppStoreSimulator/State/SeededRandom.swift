import Crypto
import Foundation

/// A deterministic random number generator (SplitMix64) so a seed reproduces ids, UUIDs and fault draws.
struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A version 4 UUID string in lower case, as Apple writes `notificationUUID`.
    mutating func uuid() -> String {
        var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &self) }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hex = bytes.map { String(format: "%02x", $0) }.joined()
        let parts = [
            hex.prefix(8), hex.dropFirst(8).prefix(4), hex.dropFirst(12).prefix(4),
            hex.dropFirst(16).prefix(4), hex.dropFirst(20),
        ]
        return parts.joined(separator: "-")
    }
}

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
