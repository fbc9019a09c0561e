import Logging
import Synchronization
import Testing

@testable import SubLedgerHTTP

/// The access log (`RequestLog`): one `Request` line per request, written when it is answered, with the route
/// template, method, status, duration and request id; refusals before the handler (no key) leave theirs too, and
/// no query value is written.
@Suite struct RequestLogTests {
    typealias H = ServiceHarness

    /// Every record a logger writes: its message and its metadata (the logger's and the record's), as text.
    struct Recorder: LogHandler {
        final class Records: Sendable {
            let value = Mutex<[(message: String, metadata: [String: String])]>([])
        }

        let records: Records
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .info

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { $1 }.mapValues { "\($0)" }
            records.value.withLock { $0.append(("\(event.message)", merged)) }
        }
    }

    static func get(_ target: String, key: String?) -> String {
        "GET \(target) HTTP/1.1\r\nHost: localhost\r\n" + (key.map { "Authorization: Bearer \($0)\r\n" } ?? "")
            + "\r\n"
    }

    @Test(arguments: [true, false])
    func eachRequestLeavesOneLineWithItsRouteStatusAndDurationAndNoQueryValue(onEventLoops: Bool) async throws {
        let records = Recorder.Records()
        let logger = Logger(label: "requests") { _ in Recorder(records: records) }
        try await H.run(entitlementReadsOnEventLoops: onEventLoops, logger: logger) { harness, client in
            let port = try #require(client.port)
            // Each query value names a customer; none may reach the log.
            let requests: [(target: String, key: String?, status: Int, route: String?, path: String?)] = [
                ("/health/live", nil, 200, "/health/live", nil),
                (
                    "/v1/accounts/alice/entitlements", harness.keyOne, 200, "/v1/accounts/{account_id}/entitlements",
                    nil
                ),
                // Refused by the authentication before any handler runs.
                ("/admin/audit?q=customer-4711", nil, 401, "/admin/audit", nil),
                // Refused by the handler: the time is not one.
                (
                    "/v1/accounts/alice/entitlements?at=customer-4712", harness.keyOne, 400,
                    "/v1/accounts/{account_id}/entitlements", nil
                ),
                // No route: the path, without its query.
                ("/v1/no-such-route?q=customer-4713#customer-4714", harness.keyOne, 404, nil, "/v1/no-such-route"),
            ]
            for request in requests {
                let outcome = await RawHTTPConnection.exchange(
                    port: port, request: Self.get(request.target, key: request.key), timeout: 20)
                let answer = try #require(outcome.response, "\(request.target): \(outcome.summary)")
                #expect(answer.status == request.status, "\(request.target)")
            }
            // The line is written as the answer goes out: it is there once the client has the answer.
            let lines = records.value.withLock { $0 }.filter { $0.message == "Request" }
            #expect(lines.count == requests.count, "\(lines)")
            for (line, request) in zip(lines, requests) {
                let fields = line.metadata
                #expect(fields["http.response.status_code"] == String(request.status), "\(request.target): \(fields)")
                #expect(fields["http.request.method"] == "GET")
                #expect(fields["http.route"] == request.route, "\(request.target): \(fields)")
                #expect(fields["url.path"] == request.path, "\(request.target): \(fields)")
                #expect(fields["hb.request.id"]?.isEmpty == false, "\(request.target): \(fields)")
                let duration = try #require(fields["duration_ms"].flatMap(Double.init), "\(fields)")
                #expect(duration >= 0)
            }
            let ids = Set(lines.compactMap { $0.metadata["hb.request.id"] })
            #expect(ids.count == requests.count, "a request id of its own per request")
        }
        let all = records.value.withLock { $0 }
        let leaked = all.filter { record in
            record.message.contains("customer-47") || record.metadata.values.contains { $0.contains("customer-47") }
        }
        #expect(leaked.isEmpty, "query values in the log: \(leaked)")
    }

    /// The answers written below the router leave their line too: the parser's refusal, and the 408 of a request
    /// that stopped arriving within its head (neither has a method or path the router saw). A request that stopped
    /// within its body reached the router, whose line it has, once, with the 408 the client got.
    @Test func theParsersRefusalAndA408LeaveALineEach() async throws {
        let records = Recorder.Records()
        let logger = Logger(label: "requests") { _ in Recorder(records: records) }
        try await H.run(requestTimeout: .seconds(1), logger: logger) { harness, client in
            let port = try #require(client.port)
            let refused = await RawHTTPConnection.exchange(
                port: port, request: "GET /health/live HTTP/1.1\r\nHost: localhost\r\nContent-Length: x\r\n\r\n",
                timeout: 20)
            #expect(try #require(refused.response, "\(refused.summary)").status == 400)
            for stall in [
                "GET /health/live HTTP/1.1\r\nHost: local",
                "POST /v1/orders HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(harness.keyOne)\r\n"
                    + "Content-Length: 9\r\n\r\n{",
            ] {
                let stalled = await RawHTTPConnection.exchangeUntilClosed(
                    port: port, request: Array("GET /health/live HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8),
                    afterAnswer: Array(stall.utf8), timeout: 30)
                #expect(String(decoding: stalled, as: UTF8.self).contains("408 Request Timeout"))
            }
        }
        let lines = records.value.withLock { $0 }.filter { $0.message == "Request" }.map(\.metadata)
        // The parser's refusal, two reads of /health/live, the 408 within a head, the POST's own line.
        #expect(lines.count == 5, "\(lines)")
        let parser = try #require(lines.first { $0["http.response.status_code"] == "400" && $0["http.route"] == nil })
        #expect(parser["error.type"] == "malformed_request")
        #expect(parser["http.request.method"] == nil && parser["url.path"] == nil)
        #expect(parser["hb.request.id"]?.isEmpty == false)
        #expect(parser["duration_ms"].flatMap(Double.init) != nil)
        let timedOut = try #require(lines.first { $0["http.response.status_code"] == "408" }, "\(lines)")
        #expect(timedOut["error.type"] == "request_timeout")
        #expect(timedOut["hb.request.id"]?.isEmpty == false)
        #expect(timedOut["duration_ms"].flatMap(Double.init) != nil)
        // The POST that stopped within its body: the router's line, with the 408 the client was answered.
        let orders = lines.filter { $0["http.route"] == "/v1/orders" }
        #expect(orders.count == 1, "\(lines)")
        #expect(orders.first?["http.response.status_code"] == "408", "\(orders)")
    }

    @Test func durationsAreMillisecondsWithThreeDecimals() {
        #expect(RequestLog.milliseconds(.zero) == "0.000")
        #expect(RequestLog.milliseconds(.microseconds(412)) == "0.412")
        #expect(RequestLog.milliseconds(.nanoseconds(1_520_000_999)) == "1520.000")
        #expect(RequestLog.milliseconds(.milliseconds(7) + .microseconds(5)) == "7.005")
    }

    @Test func aPathIsWrittenWithoutItsQueryOrFragment() {
        #expect(RequestLog.path(of: "/admin?q=alice") == "/admin")
        #expect(RequestLog.path(of: "/v1/x#part?y") == "/v1/x")
        #expect(RequestLog.path(of: "/v1/accounts/a/entitlements") == "/v1/accounts/a/entitlements")
    }
}
