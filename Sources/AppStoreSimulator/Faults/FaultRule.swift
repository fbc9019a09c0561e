/// Which endpoint family a fault applies to.
public enum FaultEndpoint: String, Sendable, Codable, CaseIterable {
    /// `POST /verifyReceipt` and `POST /sandbox/verifyReceipt`.
    case verifyReceipt = "verify_receipt"
    /// Every App Store Server API route.
    case serverAPI = "server_api"
}

/// What an injected fault does to a request.
public enum FaultKind: String, Sendable, Codable, CaseIterable {
    /// verifyReceipt answers HTTP 200 with `status` (21005 or 21100–21199, with `is-retryable`);
    /// the Server API answers 500 with errorCode 5000001.
    case appleStatus = "apple_status"
    /// HTTP 500.
    case http500 = "http_500"
    /// HTTP 503.
    case http503 = "http_503"
    /// HTTP 429 with `Retry-After` (errorCode 4290000 on the Server API).
    case http429 = "http_429"
    /// HTTP 200 with an HTML maintenance page.
    case html200 = "html_200"
    /// The normal answer, after `latency_ms`.
    case latency
    /// The request is held for `hold_ms` (default 60 s) before the normal answer, so clients time out.
    case timeout
}

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

    /// Creates a rule.
    public init(
        kind: FaultKind, rate: Double? = nil, status: Int? = nil, isRetryable: Bool? = nil, latencyMs: Int? = nil,
        holdMs: Int? = nil, remaining: Int? = nil
    ) {
        self.kind = kind
        self.rate = rate
        self.status = status
        self.isRetryable = isRetryable
        self.latencyMs = latencyMs
        self.holdMs = holdMs
        self.remaining = remaining
    }
}
