import GooglePlay
import SubLedgerCore

/// Why a call to Google (the OAuth2 token endpoint or the Android Publisher API) gave no answer to use.
///
/// `description` names the code and the HTTP status only; Google's message, which can quote the request, is in
/// `message` for logs at debug level.
public struct GooglePlayAPIError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The machine-readable reason.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// 400 (`INVALID_ARGUMENT`): the request was refused as given. Google answers an unknown or mistyped
        /// purchase token this way (`Invalid Value`), not with 404.
        public static let invalidArgument = Code("invalidArgument")
        /// 401 (`UNAUTHENTICATED`): the access token was refused, even after a fresh one was fetched.
        public static let unauthorized = Code("unauthorized")
        /// 403 (`PERMISSION_DENIED`): the service account has no access to the app in the Play Console.
        public static let permissionDenied = Code("permissionDenied")
        /// 404 (`NOT_FOUND`): no such package (or resource).
        public static let notFound = Code("notFound")
        /// 410: the purchase is no longer available for query (a subscription expired too long ago).
        public static let purchaseNoLongerAvailable = Code("purchaseNoLongerAvailable")
        /// 429 (`RESOURCE_EXHAUSTED`): over the quota; retried with backoff before it is thrown.
        public static let rateLimited = Code("rateLimited")
        /// 5xx: Google failed; retried with backoff before it is thrown.
        public static let serverError = Code("serverError")
        /// Any other status Google answered with (see `httpStatus`, `status`, `reason`).
        public static let apiError = Code("apiError")
        /// The token endpoint refused the assertion with `invalid_grant`: a wrong or revoked key, a clock far
        /// off, or an account Google does not know. A configuration error; not retried.
        public static let invalidGrant = Code("invalidGrant")
        /// The token endpoint refused the exchange with another OAuth2 error (see `oauthError`).
        public static let tokenExchangeRefused = Code("tokenExchangeRefused")
        /// A success status with a body that is not the expected JSON (or a token answer without a usable token).
        public static let malformedResponse = Code("malformedResponse")
        /// No answer in time.
        public static let timeout = Code("timeout")
        /// The connection failed, or the answer was larger than allowed.
        public static let connectionError = Code("connectionError")
        /// Nothing was sent: an argument cannot be sent as given (an empty package name or token), or the
        /// assertion could not be signed.
        public static let invalidRequest = Code("invalidRequest")

        /// The stable machine name.
        public var description: String { name }
    }

    /// The machine-readable reason.
    public var code: Code
    /// The HTTP status Google answered with, when one was received.
    public var httpStatus: Int?
    /// Google's canonical status name (`NOT_FOUND`, `UNAVAILABLE`, …), when the body had one.
    public var status: String?
    /// The first `errors[].reason` of Google's body (`invalid`, `subscriptionPurchaseNoLongerAvailable`, …).
    public var reason: String?
    /// Google's message (for debug logs; never in `description`).
    public var message: String?
    /// The token endpoint's `error` (`invalid_grant`, `invalid_scope`, …).
    public var oauthError: String?
    /// For `rateLimited` and `serverError`: the delay Google asked for with `Retry-After`, in seconds.
    public var retryAfterSeconds: Int64?

    /// Creates an error.
    public init(
        _ code: Code, httpStatus: Int? = nil, status: String? = nil, reason: String? = nil, message: String? = nil,
        oauthError: String? = nil, retryAfterSeconds: Int64? = nil
    ) {
        self.code = code
        self.httpStatus = httpStatus
        self.status = status
        self.reason = reason
        self.message = message
        self.oauthError = oauthError
        self.retryAfterSeconds = retryAfterSeconds
    }

    /// Whether the same request may succeed later: rate limits, Google's failures, timeouts and failed
    /// connections.
    public var isRetryable: Bool {
        code == .rateLimited || code == .serverError || code == .timeout || code == .connectionError
    }

    public var description: String {
        var text = "GooglePlayAPIError(\(code)"
        if let httpStatus { text += ", HTTP \(httpStatus)" }
        if let oauthError { text += ", \(oauthError)" }
        return text + ")"
    }

    /// Maps a non-2xx answer of the Android Publisher API, reading Google's error body when there is one.
    static func api(status: Int, body: GoogleAPIErrorBody?, retryAfterSeconds: Int64?) -> GooglePlayAPIError {
        let code: Code =
            switch status {
            case 400: .invalidArgument
            case 401: .unauthorized
            case 403: .permissionDenied
            case 404: .notFound
            case 410: .purchaseNoLongerAvailable
            case 429: .rateLimited
            case 500...599: .serverError
            default: .apiError
            }
        return GooglePlayAPIError(
            code, httpStatus: status, status: body?.error.status, reason: body?.error.errors?.first?.reason,
            message: body?.error.message, retryAfterSeconds: retryAfterSeconds)
    }
}
