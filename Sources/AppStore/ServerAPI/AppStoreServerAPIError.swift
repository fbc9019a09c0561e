import SubLedgerCore

/// Why an App Store Server API call failed; never contains the bearer token, key or response body.
public struct AppStoreServerAPIError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The machine-readable reason.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// 4040010: no such transaction in this environment; try the other one.
        public static let transactionIDNotFound = Code("transactionIDNotFound")
        /// 4290000 / HTTP 429: rate limited; retry after `retryAfter`.
        public static let rateLimited = Code("rateLimited")
        /// 5000000, 5000001 or HTTP 5xx: Apple failed; retryable.
        public static let serverError = Code("serverError")
        /// HTTP 401: the token was refused (key, issuer or bundle id wrong); a configuration error.
        public static let unauthorized = Code("unauthorized")
        /// Any other error Apple reported (see `apiErrorCode`).
        public static let apiError = Code("apiError")
        /// A success status with a body that is not the expected JSON.
        public static let malformedResponse = Code("malformedResponse")
        /// A signed item in the answer failed verification (see `verificationError`).
        public static let verificationFailed = Code("verificationFailed")
        /// No answer in time.
        public static let timeout = Code("timeout")
        /// The connection failed.
        public static let connectionError = Code("connectionError")
        /// The client was configured with an unusable key, lifetime or URL.
        public static let invalidConfiguration = Code("invalidConfiguration")
        /// Nothing was sent: an argument cannot be sent as given (an id that is empty, or `.` or `..`, which
        /// would name another path than the endpoint's).
        public static let invalidArgument = Code("invalidArgument")

        /// HTTP 400 with Apple's `SendReportErrorResponse`: the External Purchase Server API accepted nothing of
        /// the report; `reportErrors` says why. Resend the corrected report with the same `requestIdentifier`.
        public static let reportRejected = Code("reportRejected")

        /// The stable machine name.
        public var description: String { name }
    }

    /// The machine-readable reason.
    public var code: Code
    /// Apple's `errorCode`, when the body had one.
    public var apiErrorCode: Int?
    /// The HTTP status Apple's endpoint answered with, when one was received: the wire protocol's, never one
    /// SubLedger's own API answers with (the service decides those at its HTTP edge).
    public var httpStatus: Int?
    /// For `rateLimited`: the moment after which a retry is allowed, from `Retry-After`.
    public var retryAfter: Instant?
    /// For `verificationFailed`: why the signed item was rejected.
    public var verificationError: JWSVerificationError?
    /// For `reportRejected`: Apple's error objects, one per fault found.
    public var reportErrors: [ExternalPurchaseReportError]?

    /// Creates an error.
    public init(
        _ code: Code,
        apiErrorCode: Int? = nil,
        httpStatus: Int? = nil,
        retryAfter: Instant? = nil,
        verificationError: JWSVerificationError? = nil,
        reportErrors: [ExternalPurchaseReportError]? = nil
    ) {
        self.code = code
        self.apiErrorCode = apiErrorCode
        self.httpStatus = httpStatus
        self.retryAfter = retryAfter
        self.verificationError = verificationError
        self.reportErrors = reportErrors
    }

    /// Whether the same call may succeed later without any change.
    public var isRetryable: Bool {
        code == .rateLimited || code == .serverError || code == .timeout || code == .connectionError
    }

    /// `AppStoreServerAPIError(<code>, apiErrorCode: ..., http: ...)`.
    public var description: String {
        var parts = [code.description]
        if let apiErrorCode { parts.append("apiErrorCode: \(apiErrorCode)") }
        if let httpStatus { parts.append("http: \(httpStatus)") }
        if let verificationError { parts.append("\(verificationError.code)") }
        if let reportErrors {
            parts.append(
                "reportErrors: "
                    + reportErrors.map { "\($0.errorCode ?? 0)/\($0.fieldName ?? "")" }.joined(separator: ","))
        }
        return "AppStoreServerAPIError(\(parts.joined(separator: ", ")))"
    }
}
