/// Identifies a chain: Apple's original transaction id is unique only within one environment.
public struct ChainKey: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    public var environment: StoreEnvironment
    public var originalTransactionID: String

    public init(environment: StoreEnvironment, originalTransactionID: String) {
        self.environment = environment
        self.originalTransactionID = originalTransactionID
    }

    public static func < (lhs: ChainKey, rhs: ChainKey) -> Bool {
        (lhs.environment.rawValue, lhs.originalTransactionID) < (rhs.environment.rawValue, rhs.originalTransactionID)
    }

    public var description: String { "\(environment.rawValue):\(originalTransactionID)" }
}

extension Transaction {
    /// The chain this transaction belongs to.
    public var chainKey: ChainKey {
        ChainKey(environment: environment, originalTransactionID: originalTransactionID)
    }
}

extension RenewalInfo {
    /// The chain this renewal state describes.
    public var chainKey: ChainKey {
        ChainKey(environment: environment, originalTransactionID: originalTransactionID)
    }
}
