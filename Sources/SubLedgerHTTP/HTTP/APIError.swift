import HTTPTypes
import Hummingbird
import NIOCore
import SubLedgerCore
import SubLedgerUseCases

/// An error answered to a client as `{"error": {"code": "...", "message": "..."}}` with an HTTP status.
///
/// `code` is stable and machine-readable; `message` is for people and never contains keys, receipts or
/// tokens.
public struct APIError: Error, HTTPResponseError, Sendable, CustomStringConvertible {
    public var status: HTTPResponse.Status
    public var code: String
    public var message: String
    /// Seconds after which the client should retry (sent as `Retry-After`), for 503 answers.
    public var retryAfterSeconds: Int?
    /// The `WWW-Authenticate` challenge of a 401 answer (RFC 9110 requires one).
    var challenge: String?

    /// The methods a route takes (sent as `Allow`), for 405 answers.
    var allow: String?

    /// A refusal of the HTTP layer itself, with one of its own codes.
    init(_ status: HTTPResponse.Status, code: Code, message: String, retryAfterSeconds: Int? = nil) {
        self.init(status, mappedCode: code.rawValue, message: message, retryAfterSeconds: retryAfterSeconds)
    }

    /// A refusal told by a layer below with a code of its own typed error (`HTTPErrorMapping`, whose error types
    /// `ErrorCatalog` lists).
    init(_ status: HTTPResponse.Status, mappedCode code: String, message: String, retryAfterSeconds: Int? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.retryAfterSeconds = retryAfterSeconds
    }

    public var description: String { "\(status.code) \(code): \(message)" }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        let data = ErrorBody.json(code: code, message: message)
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8"]
        if let retryAfterSeconds { headers[.retryAfter] = String(retryAfterSeconds) }
        if let allow { headers[.allow] = allow }
        // Every 401 carries a challenge (RFC 9110); routes with another scheme set their own.
        if let challenge = challenge ?? (status == .unauthorized ? APIKeyMiddleware.bearerChallenge : nil) {
            headers[.wwwAuthenticate] = challenge
        }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func badRequest(_ code: Code, _ message: String) -> APIError {
        APIError(.badRequest, code: code, message: message)
    }
    static func notFound(_ code: Code, _ message: String) -> APIError {
        APIError(.notFound, code: code, message: message)
    }
    static func unprocessable(_ code: Code, _ message: String) -> APIError {
        APIError(.unprocessableContent, code: code, message: message)
    }
    static func bodyTooLarge(limit: Int) -> APIError {
        let size = limit % (1024 * 1024) == 0 ? "\(limit / (1024 * 1024)) MiB" : "\(limit / 1024) KiB"
        return APIError(.contentTooLarge, code: .bodyTooLarge, message: "the request body is larger than \(size)")
    }
    static func methodNotAllowed(allow: String) -> APIError {
        var error = APIError(.methodNotAllowed, code: .methodNotAllowed, message: "the route takes \(allow) only")
        error.allow = allow
        return error
    }
    static func unavailable(_ code: Code, _ message: String, retryAfter: Int) -> APIError {
        APIError(.serviceUnavailable, code: code, message: message, retryAfterSeconds: retryAfter)
    }
}

/// The body of every error answer, `{"error":{"code":…,"message":…}}`.
enum ErrorBody {
    static func json(code: String, message: String) -> [UInt8] {
        var writer = JSONWriter(capacity: 64 + code.utf8.count + message.utf8.count)
        writer.beginObject()
        writer.key("error")
        writer.beginObject()
        writer.key("code")
        writer.string(code)
        writer.key("message")
        writer.string(message)
        writer.endObject()
        writer.endObject()
        return writer.bytes
    }
}

extension APIError {
    /// The codes the HTTP layer answers with of its own (the codes of the typed errors it maps are theirs:
    /// `ErrorCatalog`). Every `APIError` the layer makes names one of these, so the list is complete by
    /// construction and docs/reference/errors.md is held against it (`ErrorCatalogTests`).
    enum Code: String, Sendable, CaseIterable {
        case bodyTooLarge = "body_too_large"
        case databaseUnavailable = "database_unavailable"
        case externalPurchaseNotReported = "external_purchase_not_reported"
        case externalPurchaseTokenTaken = "external_purchase_token_taken"
        case headersTooLarge = "headers_too_large"
        case internalError = "internal_error"
        case invalidAccountID = "invalid_account_id"
        case invalidAPIKey = "invalid_api_key"
        case invalidConsistencyToken = "invalid_consistency_token"
        case invalidExternalPurchaseToken = "invalid_external_purchase_token"
        case invalidFormat = "invalid_format"
        case invalidNotification = "invalid_notification"
        case invalidOrderID = "invalid_order_id"
        case invalidPackageName = "invalid_package_name"
        case invalidParameter = "invalid_parameter"
        case invalidProductID = "invalid_product_id"
        case invalidPurchaseToken = "invalid_purchase_token"
        case invalidPushToken = "invalid_push_token"
        case invalidQuery = "invalid_query"
        case invalidSignature = "invalid_signature"
        case invalidText = "invalid_text"
        case invalidTime = "invalid_time"
        case invalidTransactionID = "invalid_transaction_id"
        case invalidValue = "invalid_value"
        case malformedBody = "malformed_body"
        case malformedJSON = "malformed_json"
        case malformedJWS = "malformed_jws"
        case malformedReceipt = "malformed_receipt"
        case malformedRequest = "malformed_request"
        case methodNotAllowed = "method_not_allowed"
        case missingConsented = "missing_consented"
        case missingTransactionID = "missing_transaction_id"
        case notFound = "not_found"
        case requestRefused = "request_refused"
        case requestTimeout = "request_timeout"
        case unauthorized = "unauthorized"
        case unknownField = "unknown_field"
        case unknownOrder = "unknown_order"
        case unknownParameter = "unknown_parameter"
        case unknownProduct = "unknown_product"
        case uriTooLong = "uri_too_long"
        case wrongKeyScope = "wrong_key_scope"
    }
}
