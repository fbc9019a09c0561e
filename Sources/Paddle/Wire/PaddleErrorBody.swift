/// Paddle's error answer: `{"error": {"type", "code", "detail", "documentation_url", "errors"?}, "meta":
/// {"request_id"}}`.
public struct PaddleErrorBody: Decodable, Sendable, Hashable {
    public var error: Detail
    public var meta: Meta?

    /// `error`: what was refused, and why.
    public struct Detail: Decodable, Sendable, Hashable {
        /// `request_error` (the request was refused) or `api_error` (Paddle failed).
        public var type: String?
        /// Paddle's code: `not_found`, `forbidden`, `invalid_field`, `subscription_update_when_canceled`, …
        public var code: String?
        /// A sentence for people.
        public var detail: String?
        public var documentationURL: String?
        /// The fields an `invalid_field` refusal names, each with its message.
        public var errors: [FieldError]?

        /// One field an `invalid_field` refusal names.
        public struct FieldError: Decodable, Sendable, Hashable {
            public var field: String?
            public var message: String?
        }

        enum CodingKeys: String, CodingKey {
            case type, code, detail, errors
            case documentationURL = "documentation_url"
        }
    }

    /// `meta`: what Paddle says about the request itself.
    public struct Meta: Decodable, Sendable, Hashable {
        /// Paddle's id of the request, which Paddle's support asks for.
        public var requestID: String?

        enum CodingKeys: String, CodingKey {
            case requestID = "request_id"
        }
    }
}
