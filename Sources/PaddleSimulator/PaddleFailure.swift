/// A refusal in Paddle's error shape: `{"error": {"type", "code", "detail", "documentation_url", "errors"?}}` with
/// its HTTP status. The codes are Paddle's own (developer.paddle.com/errors).
public struct PaddleFailure: Error, Sendable, Equatable {
    public var status: Int
    public var code: String
    public var detail: String
    /// Per-field validation messages (`errors: [{field, message}]`), as Paddle sends with `invalid_field`.
    public var fieldErrors: [FieldError]

    public struct FieldError: Sendable, Equatable {
        public var field: String
        public var message: String
    }

    init(status: Int, code: String, detail: String, fieldErrors: [FieldError] = []) {
        self.status = status
        self.code = code
        self.detail = detail
        self.fieldErrors = fieldErrors
    }

    /// Paddle groups its error pages by area: the code's first word names it, except for shared errors.
    var documentationURL: String {
        let areas = ["adjustment": "adjustments", "subscription": "subscriptions", "transaction": "transactions"]
        let prefix = code.split(separator: "_").first.map(String.init) ?? ""
        return "https://developer.paddle.com/errors/\(areas[prefix] ?? "shared")/\(code)"
    }

    /// The body Paddle answers with.
    func body(requestID: String) -> PaddleJSON {
        var error: PaddleJSON = [
            "type": "request_error", "code": .string(code), "detail": .string(detail),
            "documentation_url": .string(documentationURL),
        ]
        if !fieldErrors.isEmpty {
            error["errors"] = .array(
                fieldErrors.map { ["field": .string($0.field), "message": .string($0.message)] })
        }
        return ["error": error, "meta": ["request_id": .string(requestID)]]
    }

    static let authenticationMissing = PaddleFailure(
        status: 403, code: "authentication_missing", detail: "Authentication header missing.")
    static let authenticationMalformed = PaddleFailure(
        status: 403, code: "authentication_malformed",
        detail: "Authentication header included, but incorrectly formatted.")
    static let forbidden = PaddleFailure(
        status: 403, code: "forbidden", detail: "You aren't permitted to perform this request.")

    static func notFound(_ id: String) -> PaddleFailure {
        PaddleFailure(status: 404, code: "not_found", detail: "Entity \(id.prefix(64)) not found")
    }

    static func badRequest(_ detail: String) -> PaddleFailure {
        PaddleFailure(status: 400, code: "bad_request", detail: detail)
    }

    static func invalidField(_ field: String, _ message: String) -> PaddleFailure {
        PaddleFailure(
            status: 400, code: "invalid_field", detail: "Invalid request.",
            fieldErrors: [FieldError(field: field, message: message)])
    }

    static func invalidURL(_ path: String) -> PaddleFailure {
        PaddleFailure(status: 404, code: "invalid_url", detail: "URL \(path.prefix(128)) not found.")
    }

    static let subscriptionCanceled = PaddleFailure(
        status: 400, code: "subscription_update_when_canceled",
        detail: "cannot update subscription, as subscription is canceled")
    static let subscriptionMustBePaused = PaddleFailure(
        status: 400, code: "subscription_must_be_paused", detail: "action can only be performed on paused subscription")
    static let subscriptionPendingChanges = PaddleFailure(
        status: 400, code: "subscription_locked_pending_changes",
        detail: "cannot update subscription, pending scheduled changes")

    static func refundStatus(_ id: String) -> PaddleFailure {
        PaddleFailure(
            status: 400, code: "adjustment_transaction_invalid_status_for_refund",
            detail: "The transaction being adjusted (refund) has a non supported status. ID: \(id)")
    }

    static let pendingRefund = PaddleFailure(
        status: 400, code: "adjustment_pending_refund_request",
        detail:
            "You are unable to create further adjustments against this transaction as there is a pending refund request"
    )

    static func amountTooHigh(_ field: String) -> PaddleFailure {
        PaddleFailure(
            status: 400, code: "adjustment_amount_above_remaining_allowed",
            detail: "The adjustment amount is above the remaining allowed amount for the item.",
            fieldErrors: [FieldError(field: field, message: "above the remaining allowed amount")])
    }
}
