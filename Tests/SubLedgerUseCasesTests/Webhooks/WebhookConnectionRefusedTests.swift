import Foundation
import SubLedgerCore
import Testing

@testable import SubLedgerStore
@testable import SubLedgerUseCases

/// A receiver that refuses connections fails the attempt at once: one connection attempt, not AsyncHTTPClient's
/// retries with backoff until the request's deadline (docs/guides/webhooks.md, "Delivery").
@Suite struct WebhookConnectionRefusedTests {
    @Test func theClientNeitherRetriesAFailedConnectionNorConnectsLongerThanItsBound() {
        let configuration = WebhookHTTPClients.configuration(
            timeout: 10_000, connectTimeout: 3_000, connectionsPerHost: 4)
        #expect(configuration.connectionPool.retryConnectionEstablishment == false)
        #expect(configuration.timeout.connect == .milliseconds(3_000))
        #expect(configuration.timeout.read == .milliseconds(10_000))
        // Connecting never takes longer than the whole request may.
        let short = WebhookHTTPClients.configuration(timeout: 500, connectTimeout: 3_000, connectionsPerHost: 4)
        #expect(short.timeout.connect == .milliseconds(500))
    }

    /// With an hour's request timeout, a retried connection would hold this attempt for that hour; the test's time
    /// limit fails it long before. The attempt is recorded failed as a refusal.
    @Test(.timeLimit(.minutes(1))) func aRefusedConnectionFailsTheAttemptAsARefusal() async throws {
        let port = try Self.closedLoopbackPort()
        var configuration = WebhookSender.Configuration()
        configuration.timeout = .seconds(3600)
        configuration.connectTimeout = .seconds(3600)
        let sender = WebhookSender(configuration: configuration)
        let result = await sender.send(Self.delivery(url: "http://127.0.0.1:\(port)/hook"), now: Instant.systemNow())
        #expect(result.status == nil)
        let error = try #require(result.error)
        #expect(error.hasPrefix("connection_refused:"), "\(error)")
        #expect(WebhookSender.errorType(error) == "connection_refused")
    }

    @Test func theErrorTypeIsTheClassBeforeTheColon() {
        #expect(WebhookSender.errorType("http_503: not a 2xx answer: busy") == "http_503")
        #expect(WebhookSender.errorType("timeout: no complete answer within the time limit") == "timeout")
    }

    static func delivery(url: String) -> WebhookDeliveryStore.DueDelivery {
        WebhookDeliveryStore.DueDelivery(
            deliveryID: 1, eventID: UUID(), eventType: "entitlement.granted", body: #"{"id":"x"}"#,
            eventCreatedAt: Instant.systemNow(), endpointID: UUID(), url: url, allowPrivateNetwork: false,
            secrets: ["whsec_test"], secretError: nil, attempts: 0, origin: "test")
    }

    /// A loopback port nothing listens on: bound by the kernel's choice, then closed.
    static func closedLoopbackPort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw POSIXError(.EIO) }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(socket, pointer, length) == 0 && getsockname(socket, pointer, &length) == 0
            }
        }
        guard bound else { throw POSIXError(.EIO) }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
