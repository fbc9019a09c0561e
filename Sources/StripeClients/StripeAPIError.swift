import Stripe

/// Why a Stripe API call failed.
public struct StripeAPIError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        /// The request could not be formed (an empty or unsafe identifier).
        case invalidRequest = "invalid_request"
        /// 401: the secret key was refused.
        case unauthorized
        /// 404: Stripe has no such object.
        case notFound = "not_found"
        /// 400, 402 or another 4xx: Stripe refused the request (`stripeCode` says why).
        case refused
        /// 429: too many requests.
        case rateLimited = "rate_limited"
        /// 5xx: Stripe failed.
        case serverError = "server_error"
        /// No answer in time.
        case timeout
        /// No connection, or it broke.
        case connectionError = "connection_error"
        /// An answer that is not the object asked for.
        case malformedResponse = "malformed_response"
    }

    public var code: Code
    public var httpStatus: Int?
    /// Stripe's own error code (`resource_missing`, `card_declined`, …), when it sent one.
    public var stripeCode: String?
    public var message: String?
    /// Stripe's `Retry-After`, in seconds.
    public var retryAfterSeconds: Int64?

    public init(
        _ code: Code, httpStatus: Int? = nil, stripeCode: String? = nil, message: String? = nil,
        retryAfterSeconds: Int64? = nil
    ) {
        self.code = code
        self.httpStatus = httpStatus
        self.stripeCode = stripeCode
        self.message = message
        self.retryAfterSeconds = retryAfterSeconds
    }

    /// The error of a non-2xx answer.
    static func api(status: Int, body: StripeErrorBody?, retryAfterSeconds: Int64?) -> StripeAPIError {
        let code: Code =
            switch status {
            case 401: .unauthorized
            case 404: .notFound
            case 429: .rateLimited
            case 500...: .serverError
            default: .refused
            }
        return StripeAPIError(
            code, httpStatus: status, stripeCode: body?.error.code,
            message: body?.error.message.map { String($0.prefix(500)) },
            retryAfterSeconds: retryAfterSeconds)
    }

    /// Whether trying again may succeed: Stripe unavailable or busy, not a refusal.
    public var isRetryable: Bool {
        switch code {
        case .rateLimited, .serverError, .timeout, .connectionError: true
        default: false
        }
    }

    public var description: String {
        "StripeAPIError(\(code.rawValue)\(httpStatus.map { ", HTTP \($0)" } ?? "")\(stripeCode.map { ", \($0)" } ?? ""))"
    }
}
