/// An answer the HTTP layer writes as-is: status, content type, `Retry-After` and body text.
struct SimpleResponse: Sendable {
    var status: Int
    var contentType: String = "application/json"
    var retryAfter: String?
    var body: String

    static func json(_ body: String, status: Int = 200) -> SimpleResponse {
        SimpleResponse(status: status, body: body)
    }
}
