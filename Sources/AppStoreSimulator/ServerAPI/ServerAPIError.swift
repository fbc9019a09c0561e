/// Apple's Server API error answers (`{"errorCode": ..., "errorMessage": ...}`).
enum ServerAPIError {
    static func body(_ code: Int, _ message: String, status: Int) -> SimpleResponse {
        .json("{\"errorCode\":\(code),\"errorMessage\":\(JSONText.quoted(message))}", status: status)
    }

    static let unauthorized = SimpleResponse(status: 401, contentType: "text/plain", body: "Unauthenticated\n")
    static let invalidTransactionID = body(4_000_006, "Invalid transaction id.", status: 400)
    static let transactionIDNotFound = body(4_040_010, "Transaction id not found.", status: 404)
    static let invalidRevision = body(4_000_005, "Invalid revision.", status: 400)
    static let invalidPaginationToken = body(4_000_011, "Invalid pagination token.", status: 400)
    static let invalidRequest = body(4_000_000, "Invalid request.", status: 400)
    // Get Notification History's own refusals.
    static let startDateTooFarInPast = body(
        4_000_012, "Invalid request. The start date is earlier than the earliest allowed date (180 days).", status: 400)
    static let startDateAfterEndDate = body(
        4_000_013, "Invalid request. The end date precedes the start date, or the two dates are equal.", status: 400)
    static let invalidNotificationPaginationToken = body(4_000_014, "Invalid pagination token.", status: 400)
    static let testNotificationNotFound = body(4_040_008, "Test notification not found.", status: 404)
    static let appTransactionDoesNotExist = body(4_040_019, "No AppTransaction exists for the customer.", status: 404)
    static let general = body(5_000_000, "An unknown error occurred.", status: 500)
    static let generalRetryable = body(
        5_000_001, "An unknown retryable error occurred. Please retry the request.", status: 500)
    static let unavailable = body(5_000_001, "Service unavailable. Please retry the request.", status: 503)
    static let rateLimited = SimpleResponse(
        status: 429, retryAfter: "1",
        body: "{\"errorCode\":4290000,\"errorMessage\":\"Rate limit exceeded.\"}")
}
