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

/// A receipt Apple verified, with the raw answer and its mapping into the core.
public struct VerifiedReceipt: Sendable {
    /// Apple's answer as decoded.
    public var response: VerifyReceiptResponse
    /// The answer mapped to the core's snapshot.
    public var snapshot: ReceiptSnapshot
    /// The endpoint that gave the answer.
    public var answeredBy: AppStoreEnvironment

    /// Creates a verified receipt.
    public init(response: VerifyReceiptResponse, snapshot: ReceiptSnapshot, answeredBy: AppStoreEnvironment) {
        self.response = response
        self.snapshot = snapshot
        self.answeredBy = answeredBy
    }
}

/// Why a receipt verification did not produce a verified receipt; never contains the receipt or secret.
public struct VerifyReceiptFailure: Hashable, Sendable, CustomStringConvertible {
    /// The machine-readable reason.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// Apple answered with a non-zero `status` (see `appleStatus`).
        public static let appleStatus = Code("appleStatus")
        /// HTTP status other than 200 (see `httpStatus`).
        public static let httpStatus = Code("httpStatus")
        /// A 200 answer that is not the expected JSON (an HTML page, a truncated body).
        public static let malformedResponse = Code("malformedResponse")
        /// The request body could not be encoded (never expected with string inputs).
        public static let malformedRequest = Code("malformedRequest")
        /// The answer did not arrive in time.
        public static let timeout = Code("timeout")
        /// The connection could not be made or broke.
        public static let connectionError = Code("connectionError")
        /// The verified receipt belongs to another app.
        public static let bundleMismatch = Code("bundleMismatch")
        /// The verified receipt lacks what the core requires.
        public static let unmappableReceipt = Code("unmappableReceipt")
        /// The answer carries a value Apple never sends (a date outside 1970-9999, an id breaking
        /// `IdentifierRule`, an out-of-range code): the same answer will come again, so retrying is futile.
        public static let impossibleValue = Code("impossibleValue")
        /// Production and sandbox each pointed to the other.
        public static let environmentLoop = Code("environmentLoop")

        /// The stable machine name.
        public var description: String { name }
    }

    /// The machine-readable reason.
    public var code: Code
    /// Apple's `status`, when the failure is Apple's answer.
    public var appleStatus: Int?
    /// The HTTP status, when one was received.
    public var httpStatus: Int?
    /// The environment whose endpoint was asked last.
    public var environment: AppStoreEnvironment

    /// Creates a failure.
    public init(code: Code, appleStatus: Int? = nil, httpStatus: Int? = nil, environment: AppStoreEnvironment) {
        self.code = code
        self.appleStatus = appleStatus
        self.httpStatus = httpStatus
        self.environment = environment
    }

    /// `VerifyReceiptFailure(<code>, status: ..., http: ..., environment)`.
    public var description: String {
        var parts = [code.description]
        if let appleStatus { parts.append("status: \(appleStatus)") }
        if let httpStatus { parts.append("http: \(httpStatus)") }
        parts.append(environment.rawValue)
        return "VerifyReceiptFailure(\(parts.joined(separator: ", ")))"
    }
}
