import Crypto

/// Secret comparison whose duration does not depend on where (or whether) the inputs differ.
enum ConstantTimeComparison {
    /// Whether two secrets are equal; both are hashed first, so their lengths do not leak either.
    static func equals(_ lhs: String, _ rhs: String) -> Bool {
        let left = SHA256.hash(data: Array(lhs.utf8))
        let right = SHA256.hash(data: Array(rhs.utf8))
        var difference: UInt8 = 0
        for (a, b) in zip(left, right) { difference |= a ^ b }
        return difference == 0
    }
}
