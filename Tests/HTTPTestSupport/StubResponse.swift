import Foundation

/// What the stub server answers; `delay` holds the whole answer back (for timeout tests).
public struct StubResponse: Sendable {
    public var status: Int
    public var headers: [(String, String)]
    public var body: Data
    public var delay: Duration?
    /// Holds the body back after the head was sent (a peer that trickles its answer).
    public var bodyDelay: Duration?

    public init(
        status: Int = 200,
        headers: [(String, String)] = [("Content-Type", "application/json")],
        body: Data = Data(),
        delay: Duration? = nil,
        bodyDelay: Duration? = nil
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.delay = delay
        self.bodyDelay = bodyDelay
    }

    /// A JSON answer.
    public static func json(_ text: String, status: Int = 200) -> StubResponse {
        StubResponse(status: status, body: Data(text.utf8))
    }

    /// A status with no body and no headers (as a plain webhook receiver answers).
    public static func empty(status: Int) -> StubResponse {
        StubResponse(status: status, headers: [])
    }
}
