import AsyncHTTPClient
import Foundation
import NIOCore
import NIOPosix
import SubLedgerCore
import SubLedgerStore
import Synchronization
import Tracing

/// Sends one webhook delivery: checks where it may go, signs it, POSTs it, reads at most 64 KiB of the answer.
///
/// Transport rules (docs/guides/webhooks.md, "Delivery"): the URL is checked again with `WebhookURLPolicy` (it was
/// checked when the endpoint was added, but the rules may have tightened since), and every address its host
/// resolves to is checked with `WebhookURLPolicy.check(address:allowPrivateNetwork:)` before connecting;
/// redirects are never followed (a 3xx is a failed attempt); the whole exchange has `timeout`; the response
/// body is read up to `maximumResponseBytes` and the connection dropped after that.
///
/// The DNS-rebinding window: AsyncHTTPClient resolves the name again itself when it connects, so a name whose
/// answers change between the check and the connection (a TTL of zero, an attacker's DNS server) could still
/// reach an address the check would refuse. The check catches every name that resolves to a private address
/// consistently; closing the window entirely needs connecting to the checked address itself, which
/// AsyncHTTPClient does not offer for https without giving up the certificate check on the name.
public struct WebhookSender: Sendable {
    /// How requests are sent.
    public struct Configuration: Sendable {
        /// The longest one request may take, connecting and reading the answer included. Default 10 s.
        public var timeout: Duration = .seconds(10)
        /// The longest connecting may take (at most `timeout`). Default 3 s. A refused connection fails at once:
        /// the attempt is not retried inside the request (the delivery's own backoff schedules the next).
        public var connectTimeout: Duration = .seconds(3)
        /// The most bytes of a response body that are read. Default 64 KiB.
        public var maximumResponseBytes = 64 * 1024
        /// Sent as `User-Agent`.
        public var userAgent = "SubLedger-Webhooks/1.0"
        /// Connections kept to one host. Default 32.
        public var connectionsPerHost = 32

        public init() {}
    }

    /// What came of one request.
    public struct Result: Sendable, Hashable {
        /// The receiver's status; `nil` when no response came.
        public var status: Int?
        /// Why it failed; `nil` for a 2xx.
        public var error: String?
        /// The start of the response body (at most `maximumResponseBytes`).
        public var responseBody: [UInt8]
        /// The body was longer than what was read.
        public var responseTruncated: Bool
    }

    public let configuration: Configuration
    let client: HTTPClient
    let resolver: WebhookAddressResolver

    /// A sender on the process's webhook HTTP client for this configuration (redirects off, timeouts set).
    public init(configuration: Configuration = Configuration(), resolver: WebhookAddressResolver = .system) {
        self.configuration = configuration
        self.resolver = resolver
        self.client = WebhookHTTPClients.client(
            timeout: Self.milliseconds(configuration.timeout),
            connectTimeout: Self.milliseconds(configuration.connectTimeout),
            connectionsPerHost: configuration.connectionsPerHost)
    }

    /// Where a delivery may connect, checked once per host and endpoint flag (a batch sends many deliveries to
    /// few endpoints); `nil` when allowed, else why not.
    public func refusal(url: String, allowPrivateNetwork: Bool) async -> String? {
        let checked: WebhookURLPolicy.Checked
        do {
            checked = try WebhookURLPolicy.check(url, allowPrivateNetwork: allowPrivateNetwork)
        } catch {
            return "\(error)"
        }
        let addresses: [WebhookURLPolicy.IPAddress]
        do {
            addresses = try await resolver.resolve(checked.host)
        } catch {
            return "dns: \(error)"
        }
        for address in addresses {
            // Plain http is allowed to a loopback host only (development): it must then resolve to loopback.
            if checked.scheme == "http" {
                guard address.isLoopback else {
                    return "\(WebhookURLError.Code.privateAddress): \(checked.host) resolved to \(address), "
                        + "not a loopback address"
                }
                continue
            }
            do {
                try WebhookURLPolicy.check(address: address, allowPrivateNetwork: allowPrivateNetwork)
            } catch {
                return "\(error.code): \(checked.host) resolved to \(error.message)"
            }
        }
        return nil
    }

    /// POSTs `delivery`'s body, signed at `now`, as attempt number `delivery.attempts + 1`, in a `webhook.send` span
    /// (docs/guides/operate.md, "Traces"; AsyncHTTPClient's own client span, and `traceparent`, go under it).
    public func send(_ delivery: WebhookDeliveryStore.DueDelivery, now: Instant) async -> Result {
        await withSpan("webhook.send", ofKind: .producer) { span in
            span.attributes["subledger.webhook.event_type"] = delivery.eventType
            span.attributes["subledger.webhook.delivery_id"] = Int(delivery.deliveryID)
            span.attributes["subledger.webhook.attempt"] = delivery.attempts + 1
            let result = await post(delivery, now: now)
            if let status = result.status { span.attributes["http.response.status_code"] = status }
            // The code only: the error text quotes the receiver's answer, which is not the collector's business.
            if let error = result.error {
                span.attributes["error.type"] = Self.errorType(error)
                span.setStatus(SpanStatus(code: .error))
            }
            return result
        }
    }

    private func post(_ delivery: WebhookDeliveryStore.DueDelivery, now: Instant) async -> Result {
        let body = Array(delivery.body.utf8)
        var request = HTTPClientRequest(url: delivery.url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "User-Agent", value: configuration.userAgent)
        request.headers.add(name: "SubLedger-Event-Id", value: delivery.eventID.uuidString.lowercased())
        request.headers.add(name: "SubLedger-Event-Type", value: delivery.eventType)
        request.headers.add(name: "SubLedger-Delivery-Id", value: String(delivery.deliveryID))
        request.headers.add(name: "SubLedger-Delivery-Attempt", value: String(delivery.attempts + 1))
        request.headers.add(
            name: WebhookSignature.headerName,
            value: WebhookSignature.header(
                body: body, timestamp: now.millisecondsSince1970 / 1000, secrets: delivery.secrets))
        request.body = .bytes(ByteBuffer(bytes: body))
        do {
            let response = try await client.execute(
                request, timeout: .milliseconds(max(1, Self.milliseconds(configuration.timeout))))
            var collected: [UInt8] = []
            var truncated = false
            for try await chunk in response.body {
                let room = configuration.maximumResponseBytes - collected.count
                if chunk.readableBytes > room {
                    collected += chunk.readableBytesView.prefix(room)
                    truncated = true
                    // Leaving the loop drops the rest: AsyncHTTPClient closes the connection.
                    break
                }
                collected += chunk.readableBytesView
            }
            let status = Int(response.status.code)
            let error = (200..<300).contains(status) ? nil : Self.statusError(status, body: collected)
            return Result(status: status, error: error, responseBody: collected, responseTruncated: truncated)
        } catch {
            return Result(status: nil, error: Self.transportError(error), responseBody: [], responseTruncated: false)
        }
    }

    /// `http_<status>` and the start of the receiver's answer (it often says why).
    static func statusError(_ status: Int, body: [UInt8]) -> String {
        let text = String(decoding: body.prefix(200), as: UTF8.self)
            .filter { !$0.isNewline && $0 != "\0" }
        let kind = (300..<400).contains(status) ? "a redirect, not followed" : "not a 2xx answer"
        return text.isEmpty ? "http_\(status): \(kind)" : "http_\(status): \(kind): \(text)"
    }

    /// The class of a failed attempt's error, the part before its colon (`connection_refused`, `timeout`,
    /// `http_503`, `transport`): the span's `error.type`.
    static func errorType(_ error: String) -> String {
        String(error.prefix { $0 != ":" })
    }

    /// A short, stable description of why no response came.
    static func transportError(_ error: any Error) -> String {
        if isConnectionRefused(error) {
            return "connection_refused: the receiver refused the connection"
        }
        if let client = error as? HTTPClientError {
            switch client {
            case .deadlineExceeded, .readTimeout, .writeTimeout:
                return "timeout: no complete answer within the time limit"
            case .connectTimeout:
                return "timeout: could not connect within the time limit"
            default:
                return "transport: \(client)"
            }
        }
        return "transport: \(error)"
    }

    /// Whether nothing listens where the delivery connected (`ECONNREFUSED`, from NIO's connect or as one of the
    /// failures of its attempts at each address).
    static func isConnectionRefused(_ error: any Error) -> Bool {
        if let error = error as? IOError { return error.errnoCode == ECONNREFUSED }
        if let error = error as? NIOConnectionError {
            return !error.connectionErrors.isEmpty
                && error.connectionErrors.allSatisfy { isConnectionRefused($0.error) }
        }
        return false
    }

    static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}

/// The webhook HTTP clients, one per configuration, kept for the life of the process: AsyncHTTPClient wants a
/// client shut down before it is released, and a process delivers until it exits.
enum WebhookHTTPClients {
    private struct Key: Hashable {
        var timeoutMilliseconds: Int64
        var connectTimeoutMilliseconds: Int64
        var connectionsPerHost: Int

        /// At least a millisecond each, connecting no longer than the whole request.
        init(timeout: Int64, connectTimeout: Int64, connectionsPerHost: Int) {
            timeoutMilliseconds = max(1, timeout)
            connectTimeoutMilliseconds = min(timeoutMilliseconds, max(1, connectTimeout))
            self.connectionsPerHost = max(1, connectionsPerHost)
        }
    }

    private static let clients = Mutex<[Key: HTTPClient]>([:])

    static func client(timeout: Int64, connectTimeout: Int64, connectionsPerHost: Int) -> HTTPClient {
        let key = Key(timeout: timeout, connectTimeout: connectTimeout, connectionsPerHost: connectionsPerHost)
        return clients.withLock { clients in
            if let client = clients[key] { return client }
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration(key))
            clients[key] = client
            return client
        }
    }

    /// The client's configuration (milliseconds): no redirects, no decompression, the connect and read timeouts,
    /// and no retrying of a failed connection inside a request. AsyncHTTPClient's pool would otherwise connect again
    /// with backoff until the request's deadline, so a receiver that refuses connections held each attempt for the
    /// whole `timeout` before it failed with the same refusal.
    static func configuration(timeout: Int64, connectTimeout: Int64, connectionsPerHost: Int)
        -> HTTPClient.Configuration
    {
        configuration(Key(timeout: timeout, connectTimeout: connectTimeout, connectionsPerHost: connectionsPerHost))
    }

    private static func configuration(_ key: Key) -> HTTPClient.Configuration {
        var http = HTTPClient.Configuration()
        http.redirectConfiguration = .disallow
        http.timeout = HTTPClient.Configuration.Timeout(
            connect: .milliseconds(key.connectTimeoutMilliseconds), read: .milliseconds(key.timeoutMilliseconds))
        http.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = key.connectionsPerHost
        http.connectionPool.retryConnectionEstablishment = false
        http.decompression = .disabled
        return http
    }
}
