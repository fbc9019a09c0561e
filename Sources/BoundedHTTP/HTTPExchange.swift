import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// The HTTP side the store clients share (`AppStoreClients`, `GooglePlayClients`): one pooled `HTTPClient`, a logger,
/// and exchanges bounded in time and size.
///
/// AsyncHTTPClient's deadline stops applying once the response head arrives, so a peer that sends headers and
/// then trickles the body would hold a caller indefinitely; here the time limit covers connecting, sending, the
/// head and the full body.
public struct HTTPExchange: Sendable {
    /// The answer: status, headers and the complete body.
    public struct Answer: Sendable {
        public var status: Int
        public var headers: HTTPHeaders
        public var body: Data

        public init(status: Int, headers: HTTPHeaders, body: Data) {
            self.status = status
            self.headers = headers
            self.body = body
        }
    }

    /// Why no answer was obtained.
    public enum Failure: Error {
        case timeout
        case connection
    }

    private struct TimeLimitReached: Error {}

    /// How long past `timeout` the whole exchange may take before it is abandoned.
    static let grace: Duration = .milliseconds(500)

    /// The shared client; its connection pool serves every request.
    public let client: HTTPClient
    /// Where request failures are logged (at debug level, never with bodies or credentials).
    public let logger: Logger
    /// The largest answer accepted; a longer body fails the exchange.
    public let maximumBytes: Int

    public init(client: HTTPClient, logger: Logger, maximumBytes: Int) {
        self.client = client
        self.logger = logger
        self.maximumBytes = maximumBytes
    }

    /// Sends one request and reads the whole answer; `body` goes with `Content-Type: contentType`, and a POST
    /// without a body says `Content-Length: 0` (Google's front end answers 411 to one that says nothing).
    public func perform(
        _ method: HTTPMethod,
        url: String,
        headers: [(String, String)],
        body: Data? = nil,
        contentType: String = "application/json",
        timeout: Duration
    ) async throws(Failure) -> Answer {
        var request = HTTPClientRequest(url: url)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body {
            request.headers.add(name: "Content-Type", value: contentType)
            request.body = .bytes(ByteBuffer(bytes: body))
        } else if method == .POST {
            request.headers.add(name: "Content-Length", value: "0")
        }
        let (client, logger, maximumBytes) = (client, logger, maximumBytes)
        do {
            return try await withThrowingTaskGroup(of: Answer.self) { [request] group in
                group.addTask {
                    let response = try await client.execute(request, timeout: timeout.timeAmount, logger: logger)
                    let body = try await response.body.collect(upTo: maximumBytes)
                    return Answer(
                        status: Int(response.status.code), headers: response.headers,
                        body: Data(body.readableBytesView))
                }
                group.addTask {
                    // A little past the client's own deadline, so its more precise error wins when both fire.
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
            throw Self.isTimeout(error) ? .timeout : .connection
        }
    }

    /// Whether the error means the deadline, connect, read or write timeout passed.
    public static func isTimeout(_ error: any Error) -> Bool {
        if let httpError = error as? HTTPClientError {
            return httpError == .deadlineExceeded || httpError == .readTimeout || httpError == .connectTimeout
                || httpError == .writeTimeout
        }
        if let channelError = error as? ChannelError, case .connectTimeout = channelError { return true }
        return false
    }
}

extension Duration {
    /// The same span as NIO's `TimeAmount`, clamped to what it can hold.
    var timeAmount: TimeAmount {
        let (seconds, attoseconds) = components
        let nanoseconds = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !nanoseconds.overflow else { return .nanoseconds(seconds < 0 ? .min : .max) }
        return .nanoseconds(nanoseconds.partialValue + attoseconds / 1_000_000_000)
    }
}
