/// A fault injected into an endpoint with a probability.
public struct FaultRule: Sendable, Codable, Hashable {
    /// What happens.
    public var kind: FaultKind
    /// Probability per request, 0...1, drawn from the seeded generator. Default: 1.
    public var rate: Double?
    /// For `apple_status`: the status to answer. Default: 21005.
    public var status: Int?
    /// For `apple_status` 21100–21199: the `is-retryable` flag. Default: true.
    public var isRetryable: Bool?
    /// For `latency`: added delay in milliseconds. Default: 200.
    public var latencyMs: Int?
    /// For `timeout`: how long the request is held, in milliseconds. Default: 60000.
    public var holdMs: Int?
    /// Only the next N requests that draw the fault get it; nil for no limit.
    public var remaining: Int?
    /// For `latency` and `timeout`: a held request is answered as soon as this many requests of the endpoint
    /// are held at once (all of them together), or when its delay ends, whichever comes first. It shows whether a
    /// client really sends that many requests side by side, without timing anything.
    public var gather: Int?

    /// Creates a rule.
    public init(
        kind: FaultKind, rate: Double? = nil, status: Int? = nil, isRetryable: Bool? = nil, latencyMs: Int? = nil,
        holdMs: Int? = nil, remaining: Int? = nil, gather: Int? = nil
    ) {
        self.kind = kind
        self.rate = rate
        self.status = status
        self.isRetryable = isRetryable
        self.latencyMs = latencyMs
        self.holdMs = holdMs
        self.remaining = remaining
        self.gather = gather
    }
}
