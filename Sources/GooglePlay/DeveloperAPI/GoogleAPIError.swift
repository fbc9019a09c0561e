/// The error body of Google's APIs: `{"error": {"code": 404, "message": "…", "status": "NOT_FOUND",
/// "errors": [{"message", "domain", "reason"}]}}`.
public struct GoogleAPIErrorBody: Codable, Hashable, Sendable {
    public var error: GoogleAPIError

    public init(error: GoogleAPIError) { self.error = error }
}

/// The `error` member of `GoogleAPIErrorBody`.
public struct GoogleAPIError: Codable, Hashable, Sendable {
    /// The HTTP status, repeated.
    public var code: Int
    public var message: String
    /// The canonical status name: `INVALID_ARGUMENT`, `UNAUTHENTICATED`, `PERMISSION_DENIED`, `NOT_FOUND`, …
    public var status: String?
    public var errors: [Detail]?

    public init(code: Int, message: String, status: String?, errors: [Detail]? = nil) {
        self.code = code
        self.message = message
        self.status = status
        self.errors = errors
    }

    /// One entry of `errors`.
    public struct Detail: Codable, Hashable, Sendable {
        public var message: String?
        public var domain: String?
        public var reason: String?

        public init(message: String?, domain: String?, reason: String?) {
            self.message = message
            self.domain = domain
            self.reason = reason
        }
    }

    /// The canonical status name Google pairs with an HTTP status.
    public static func statusName(forHTTPStatus code: Int) -> String {
        switch code {
        case 400: "INVALID_ARGUMENT"
        case 401: "UNAUTHENTICATED"
        case 403: "PERMISSION_DENIED"
        case 404: "NOT_FOUND"
        case 409: "ABORTED"
        case 410: "NOT_FOUND"
        case 429: "RESOURCE_EXHAUSTED"
        case 503: "UNAVAILABLE"
        case 504: "DEADLINE_EXCEEDED"
        default: code >= 500 ? "INTERNAL" : "FAILED_PRECONDITION"
        }
    }
}
