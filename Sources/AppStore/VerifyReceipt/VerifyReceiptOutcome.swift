import SubLedgerCore

/// The typed result of verifying one receipt with Apple: every answer, and every failure to get one.
public enum VerifyReceiptOutcome: Sendable {
    /// Apple verified the receipt (status 0 or 21006).
    case valid(VerifiedReceipt)
    /// Apple says the receipt can never verify (21000, 21002, 21003, 21010), or it names another app.
    case invalidReceipt(VerifyReceiptFailure)
    /// The request was refused for a configuration reason (21004 wrong shared secret, HTTP 401/403).
    case configurationError(VerifyReceiptFailure)
    /// No usable answer now; the same request may succeed later.
    case retryable(VerifyReceiptFailure)
    /// Apple answered with a final error that is neither the receipt's nor ours (non-retryable 211xx, unknown status).
    case upstreamFailure(VerifyReceiptFailure)

    /// Whether retrying the same request later may give a different result.
    public var isRetryable: Bool {
        if case .retryable = self { return true }
        return false
    }
}
