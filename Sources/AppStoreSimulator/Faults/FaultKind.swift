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
