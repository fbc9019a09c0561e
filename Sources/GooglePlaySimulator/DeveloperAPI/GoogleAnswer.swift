import Foundation
import GooglePlay

/// An answer of Google's endpoints, before it becomes an HTTP response.
struct GoogleAnswer: Sendable {
    var status: Int
    var body: Data
    var contentType = "application/json; charset=UTF-8"

    static func json(_ value: some Encodable, status: Int = 200) -> GoogleAnswer {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return GoogleAnswer(status: status, body: (try? encoder.encode(value)) ?? Data("{}".utf8))
    }

    /// The empty success of `acknowledge` and `consume`: 200 with no body, as Google answers them.
    static let empty = GoogleAnswer(status: 200, body: Data())

    /// `{"error": {"code", "message", "status", "errors": [{"message", "domain": "global", "reason"}]}}`.
    static func error(_ status: Int, _ message: String, reason: String) -> GoogleAnswer {
        json(
            GoogleAPIErrorBody(
                error: GoogleAPIError(
                    code: status, message: message, status: GoogleAPIError.statusName(forHTTPStatus: status),
                    errors: [.init(message: message, domain: "global", reason: reason)])),
            status: status)
    }

    static let unauthenticated = error(
        401, "Request is missing required authentication credential. Expected OAuth 2 access token.",
        reason: "required")
    static let invalidCredentials = error(401, "Request had invalid authentication credentials.", reason: "authError")
    static let invalidToken = error(400, "Invalid Value", reason: "invalid")
    static let packageNotFound = error(
        404, "No application was found for the given package name.", reason: "applicationNotFound")
    static let orderNotFound = error(404, "The order was not found for this application.", reason: "notFound")
    static let expiredTooLong = error(
        410, "The subscription purchase is no longer available for query because it has been expired for too long.",
        reason: "subscriptionPurchaseNoLongerAvailable")
}
