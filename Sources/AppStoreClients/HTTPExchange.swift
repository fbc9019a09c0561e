import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// The HTTP side both Apple clients share: one pooled `HTTPClient`, a logger, and exchanges bounded in
/// time and size.
///
/// AsyncHTTPClient's deadline stops applying once the response head arrives, so a peer that sends
/// headers and then trickles the body would hold a caller indefinitely; here the time limit covers
/// connecting, sending, the head and the full body.
struct HTTPExchange: Sendable {
    /// The answer: status, headers and the complete body.
    struct Answer: Sendable {
        var status: Int
        var headers: HTTPHeaders
        var body: Data
    }

    /// Why no answer was obtained.
    enum Failure: Error {
        case timeout
        case connection
    }

    private struct TimeLimitReached: Error {}

    /// How long past `timeout` the whole exchange may take before it is abandoned.
    static let grace: Duration = .milliseconds(500)

    /// The shared client; its connection pool serves every request.
    let client: HTTPClient
    /// Where request failures are logged (at debug level, never with bodies or credentials).
    let logger: Logger
    /// The largest answer accepted; a longer body fails the exchange.
    let maximumBytes: Int

    /// Sends one request and reads the whole answer; a JSON `body` is sent with `Content-Type: application/json`.
    func perform(
        _ method: HTTPMethod,
        url: String,
        headers: [(String, String)],
        jsonBody body: Data? = nil,
        timeout: Duration
    ) async throws(Failure) -> Answer {
        let request = Self.request(method, url: url, headers: headers, jsonBody: body)
        let (client, logger, maximumBytes) = (client, logger, maximumBytes)
        do {
            return try await withThrowingTaskGroup(of: Answer.self) { group in
                group.addTask {
                    let response = try await client.execute(request, timeout: timeout.timeAmount, logger: logger)
                    let body = try await response.body.collect(upTo: maximumBytes)
                    return Answer(
                        status: Int(response.status.code),
                        headers: response.headers,
                        body: Data(body.readableBytesView)
                    )
                }
                group.addTask {
                    // A little past the client's own deadline, so its more precise error (say, the refused
                    // connection it kept retrying) wins when both fire.
                    try await Task.sleep(for: timeout + Self.grace)
                    throw TimeLimitReached()
                }
                defer { group.cancelAll() }
                guard let answer = try await group.next() else { throw TimeLimitReached() }
                return answer
            }
        } catch is TimeLimitReached {
            throw .timeout
        } catch {
            throw HTTPFailureClassifier.isTimeout(error) ? .timeout : .connection
        }
    }

    private static func request(
        _ method: HTTPMethod, url: String, headers: [(String, String)], jsonBody body: Data?
    ) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: url)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        return request
    }
}
