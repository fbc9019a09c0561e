/// Identifies a chain: its id (`Transaction.chainID`) is unique only within one environment of its store.
public struct ChainKey: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    public var environment: StoreEnvironment
    public var chainID: String

    /// The stored chains' JSON keys (`StoredChainJSON`): the chain id keeps the name it was first stored under.
    enum CodingKeys: String, CodingKey {
        case environment
        case chainID = "originalTransactionID"
    }

    public init(environment: StoreEnvironment, chainID: String) {
        self.environment = environment
        self.chainID = chainID
    }

    public static func < (lhs: ChainKey, rhs: ChainKey) -> Bool {
        (lhs.environment.rawValue, lhs.chainID) < (rhs.environment.rawValue, rhs.chainID)
    }

    public var description: String { "\(environment.rawValue):\(chainID)" }
}

extension Transaction {
    /// The chain this transaction belongs to.
    public var chainKey: ChainKey {
        ChainKey(environment: environment, chainID: chainID)
    }
}

extension RenewalInfo {
    /// The chain this renewal state describes.
    public var chainKey: ChainKey {
        ChainKey(environment: environment, chainID: chainID)
    }
}
