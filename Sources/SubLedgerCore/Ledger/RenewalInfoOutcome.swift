/// What became of one renewal info of an input.
public struct RenewalInfoOutcome: Hashable, Sendable, Codable {
    public enum Result: Hashable, Sendable, Codable {
        /// Stored as the chain's latest renewal state.
        case applied
        /// Older than (or equal to) what is stored: ignored, state does not move backwards.
        case stale
        /// Not stored: see the reason.
        case ignored(IgnoredTransaction.Reason)
    }

    public var chain: ChainKey
    public var observedAt: Instant
    public var result: Result

    public init(chain: ChainKey, observedAt: Instant, result: Result) {
        self.chain = chain
        self.observedAt = observedAt
        self.result = result
    }
}
