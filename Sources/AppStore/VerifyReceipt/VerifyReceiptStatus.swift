/// What a `verifyReceipt` `status` means for the caller.
public enum VerifyReceiptStatus: Hashable, Sendable {
    /// 0, or 21006 (a valid receipt whose subscription has expired; the body is a normal receipt).
    case valid
    /// 21007: a sandbox receipt sent to production; ask the sandbox endpoint.
    case useSandbox
    /// 21008: a production receipt sent to the sandbox; ask the production endpoint.
    case useProduction
    /// 21000, 21002, 21003, 21010: the receipt will never verify; do not retry.
    case invalidReceipt
    /// 21004: the shared secret is wrong; an operator must fix configuration.
    case configurationError
    /// 21005, 21009, and 21100–21199 marked retryable: Apple could not answer now; try again later.
    case retryable
    /// 21100–21199 explicitly marked not retryable, or a status Apple does not document.
    case upstreamFailure

    /// Classifies a status; `isRetryable` is the answer's `is-retryable` flag (honoured for 21100–21199).
    public init(status: Int, isRetryable: Bool?) {
        switch status {
        case 0, 21006: self = .valid
        case 21007: self = .useSandbox
        case 21008: self = .useProduction
        case 21000, 21002, 21003, 21010: self = .invalidReceipt
        case 21004: self = .configurationError
        case 21005, 21009: self = .retryable
        // Apple documents 21100–21199 as internal data access errors and marks the retryable ones;
        // when the flag is absent, retrying is the safe reading (the receipt itself was not judged).
        case 21100...21199: self = isRetryable == false ? .upstreamFailure : .retryable
        default: self = .upstreamFailure
        }
    }
}
