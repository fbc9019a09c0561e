import SubLedgerCore

/// One decision or call to Apple about a consumption request, as the audit trail keeps it.
public struct ConsumptionAttemptRecord: Sendable, Hashable {
    /// How it ended.
    public enum Outcome: String, Sendable, Hashable, CaseIterable {
        /// Apple accepted the answer: the request is `sent`.
        case accepted
        /// Apple failed in a way that may pass (5xx, 429, timeout): the request is `retry` until `nextAttemptAt`.
        case transientFailure = "transient_failure"
        /// Apple refused it (4xx), or its deadline passed: the request is `failed`.
        case finalFailure = "final_failure"
        /// No consent in force: the request is `skipped_no_consent`, nothing was sent.
        case skippedNoConsent = "skipped_no_consent"
        /// The app's policy does not answer: the request is `skipped_disabled`, nothing was sent.
        case skippedDisabled = "skipped_disabled"

        /// The request's state after this outcome.
        var state: String {
            switch self {
            case .accepted: "sent"
            case .transientFailure: "retry"
            case .finalFailure: "failed"
            case .skippedNoConsent: "skipped_no_consent"
            case .skippedDisabled: "skipped_disabled"
            }
        }
    }

    public var outcome: Outcome
    /// `v1` or `v2`, when Apple was called.
    public var endpoint: String?
    /// The request body sent (JSON), when Apple was called.
    public var body: String?
    /// Apple's HTTP status, when it answered.
    public var httpStatus: Int?
    /// Apple's `errorCode`, when its answer had one.
    public var appleErrorCode: Int?
    /// What went wrong, without secrets.
    public var detail: String?
    /// For a transient failure: when to try again.
    public var nextAttemptAt: Instant?
    /// Whether this record counts as a call to Apple.
    public var calledApple: Bool { endpoint != nil }

    public init(
        outcome: Outcome, endpoint: String? = nil, body: String? = nil, httpStatus: Int? = nil,
        appleErrorCode: Int? = nil, detail: String? = nil, nextAttemptAt: Instant? = nil
    ) {
        self.outcome = outcome
        self.endpoint = endpoint
        self.body = body
        self.httpStatus = httpStatus
        self.appleErrorCode = appleErrorCode
        self.detail = detail
        self.nextAttemptAt = nextAttemptAt
    }
}
