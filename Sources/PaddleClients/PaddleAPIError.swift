import Paddle

/// Why a Paddle API call failed.
public struct PaddleAPIError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        /// The request could not be formed (an empty or unsafe identifier).
        case invalidRequest = "invalid_request"
        /// 401 or 403: the API key was missing, malformed, refused, or lacks the permission (`paddleCode` says which).
        case unauthorized
        /// 404: Paddle has no such entity (or no such URL).
        case notFound = "not_found"
        /// 400, 409, 422 or another 4xx: Paddle refused the request (`paddleCode` says why).
        case refused
        /// 429: too many requests.
        case rateLimited = "rate_limited"
        /// 5xx: Paddle failed.
        case serverError = "server_error"
        /// No answer in time.
        case timeout
        /// No connection, or it broke.
        case connectionError = "connection_error"
        /// An answer that is not the entity asked for (`field` names what could not be read).
        case malformedResponse = "malformed_response"
    }

    public var code: Code
    public var httpStatus: Int?
    /// Paddle's own error code (`not_found`, `forbidden`, `invalid_field`, …), when it sent one.
    public var paddleCode: String?
    /// Paddle's sentence about it, shortened.
    public var detail: String?
    /// Paddle's `meta.request_id`, which Paddle's support asks for.
    public var requestID: String?
    /// Paddle's `Retry-After`, in seconds.
    public var retryAfterSeconds: Int64?
    /// For a malformed answer, the field that could not be read (`PaddleWireError`).
    public var field: String?

    public init(
        _ code: Code, httpStatus: Int? = nil, paddleCode: String? = nil, detail: String? = nil,
        requestID: String? = nil, retryAfterSeconds: Int64? = nil, field: String? = nil
    ) {
        self.code = code
        self.httpStatus = httpStatus
        self.paddleCode = paddleCode
        self.detail = detail
        self.requestID = requestID
        self.retryAfterSeconds = retryAfterSeconds
        self.field = field
    }

    /// The error of a non-2xx answer and its body, when the body is Paddle's error.
    static func api(status: Int, body: PaddleErrorBody?, retryAfterSeconds: Int64?) -> PaddleAPIError {
        let code: Code =
            switch status {
            case 401, 403: .unauthorized
            case 404: .notFound
            case 429: .rateLimited
            case 500...: .serverError
            default: .refused
            }
        return PaddleAPIError(
            code, httpStatus: status, paddleCode: body?.error.code.map { String($0.prefix(128)) },
            detail: body?.error.detail.map { String($0.prefix(500)) },
            requestID: body?.meta?.requestID.map { String($0.prefix(128)) }, retryAfterSeconds: retryAfterSeconds)
    }

    /// Whether trying again may succeed: Paddle unavailable or busy, not a refusal.
    public var isRetryable: Bool {
        switch code {
        case .rateLimited, .serverError, .timeout, .connectionError: true
        default: false
        }
    }

    public var description: String {
        var text = "PaddleAPIError(\(code.rawValue)"
        if let httpStatus { text += ", HTTP \(httpStatus)" }
        if let paddleCode { text += ", \(paddleCode)" }
        if let field { text += ", \(field)" }
        return text + ")"
    }
}
