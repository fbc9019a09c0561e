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

    public init(_ status: HTTPResponse.Status, code: String, message: String, retryAfterSeconds: Int? = nil) {
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
        // Every 401 carries a challenge (RFC 9110); routes with another scheme set their own.
        if let challenge = challenge ?? (status == .unauthorized ? APIKeyMiddleware.bearerChallenge : nil) {
            headers[.wwwAuthenticate] = challenge
        }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func badRequest(_ code: String, _ message: String) -> APIError {
        APIError(.badRequest, code: code, message: message)
    }
    static func notFound(_ code: String, _ message: String) -> APIError {
        APIError(.notFound, code: code, message: message)
    }
    static func unprocessable(_ code: String, _ message: String) -> APIError {
        APIError(.unprocessableContent, code: code, message: message)
    }
    static func bodyTooLarge(limit: Int) -> APIError {
        let size = limit % (1024 * 1024) == 0 ? "\(limit / (1024 * 1024)) MiB" : "\(limit / 1024) KiB"
        return APIError(.contentTooLarge, code: "body_too_large", message: "the request body is larger than \(size)")
    }
    static func unavailable(_ code: String, _ message: String, retryAfter: Int) -> APIError {
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
