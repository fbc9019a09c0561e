import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// One HTTP request and its whole answer, bounded in time and size.
///
/// AsyncHTTPClient's deadline stops applying once the response head arrives, so a peer that sends
/// headers and then trickles the body would hold a caller indefinitely; here the time limit covers
/// connecting, sending, the head and the full body.
enum HTTPExchange {
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

    static func perform(
        _ request: HTTPClientRequest,
        on client: HTTPClient,
        timeout: Duration,
        maximumBytes: Int,
        logger: Logger
    ) async throws(Failure) -> Answer {
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
}
