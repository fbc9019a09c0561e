/// Stripe's error answer: `{"error": {"type", "code", "message", "param", "decline_code"}}`.
public struct StripeErrorBody: Decodable, Sendable, Hashable {
    public var error: Detail

    public struct Detail: Decodable, Sendable, Hashable {
        /// `api_error`, `card_error`, `idempotency_error`, `invalid_request_error`, `rate_limit_error`, …
        public var type: String?
        /// `resource_missing`, `card_declined`, …
        public var code: String?
        public var message: String?
        public var param: String?
        public var declineCode: String?

        enum CodingKeys: String, CodingKey {
            case type, code, message, param
            case declineCode = "decline_code"
        }
    }
}
