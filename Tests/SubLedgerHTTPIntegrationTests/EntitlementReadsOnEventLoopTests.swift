import CatalogFile
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdTesting
import Logging
import PostgresLibPQ
import Prometheus
import SubLedgerCore
import SubLedgerStore
import SubLedgerTestSupport
import Synchronization
import Testing

@testable import SubLedgerHTTP
@testable import SubLedgerUseCases

/// Entitlement reads answered on the event loop (`EntitlementReadsOnEventLoop`): the same bytes as the router's,
/// every other request (and every read it cannot answer) passed to the router, answers in request order.
@Suite struct EntitlementReadsOnEventLoopTests {
    typealias H = ServiceHarness

    /// One answer as compared: status, headers but `Date`, body.
    struct Answer: Equatable, CustomStringConvertible {
        var status: Int
        var headers: [String]
        var body: String
        var description: String { "\(status) \(headers) \(body)" }

        init(_ response: RawHTTPResponse) {
            status = response.status
            // `Date` by name and place only: its value is the second the answer was made.
            headers = response.headers.map { $0.name.lowercased() == "date" ? "Date" : "\($0.name): \($0.value)" }
            body = String(decoding: response.body, as: UTF8.self)
        }
    }

    static func get(_ path: String, key: String?, extra: String = "") -> String {
        "GET \(path) HTTP/1.1\r\nHost: localhost\r\n" + (key.map { "Authorization: Bearer \($0)\r\n" } ?? "") + extra
            + "\r\n"
    }

    /// What a service answered and recorded for a set of requests: the answers, its request metrics
    /// (`RequestMetrics`, from a registry of its own), its request log, and how many reads the event loop answered.
    struct Observed: Sendable {
        var answers: [Answer]
        /// The Prometheus lines of the request metrics: each counter and gauge, and each duration's count.
        var metrics: [String]
        var log: [String]
        var answeredOnEventLoops: Int?
    }

    /// The request log's lines a logger writes: level, message and metadata, the request id's and the duration's
    /// presence for their values (a fresh id per request, a time that varies).
    struct RequestLogRecorder: LogHandler {
        final class Lines: Sendable {
            let value = Mutex<[String]>([])
        }

        let lines: Lines
        var metadata: Logger.Metadata = [:]
        var metadataProvider: Logger.MetadataProvider?
        var logLevel: Logger.Level = .info

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            guard event.message.description == "Request" else { return }
            var all = metadata.merging(event.metadata ?? [:]) { $1 }
            let hasID = all.removeValue(forKey: "hb.request.id") != nil
            // Its value varies from run to run; that it is there is compared.
            all["duration_ms"] = all["duration_ms"].map { _ in "measured" }
            let fields = all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            lines.value.withLock { $0.append("\(event.level) \(event.message) id=\(hasID) \(fields)") }
        }
    }

    /// The request metrics' lines of a registry, without the durations' buckets and sums (times vary).
    static func requestMetrics(_ registry: PrometheusCollectorRegistry) -> [String] {
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        return String(decoding: buffer, as: UTF8.self).split(separator: "\n").map(String.init).filter { line in
            (line.hasPrefix("hb_requests") || line.hasPrefix("hb_request_errors")
                || line.hasPrefix("http_server_active_requests")
                || line.hasPrefix("http_server_request_duration_count"))
        }.sorted()
    }

    /// The service's answers to a set of requests, with or without the event loop's route.
    static func observe(onEventLoops: Bool) async throws -> Observed {
        let collected = Mutex<[Answer]>([])
        let lines = RequestLogRecorder.Lines()
        let registry = PrometheusCollectorRegistry()
        let logger = Logger(label: "requests") { _ in RequestLogRecorder(lines: lines) }
        let answeredHere = Mutex<Int?>(nil)
        try await H.run(
            entitlementReadsOnEventLoops: onEventLoops, metricsRegistry: registry, logger: logger
        ) { harness, client in
            let order = try await client.call(
                .post, "/v1/orders", key: harness.keyOne, json: ["account_id": "alice", "product_id": "pro.monthly"])
            let token = try #require(order.json["app_account_token"] as? String)
            let signed = try harness.signedTransaction(id: "1000", purchasedOnDay: 0, expiresOnDay: 30, token: token)
            let submitted = try await client.call(
                .post, "/v1/transactions", key: harness.keyOne,
                json: ["account_id": "alice", "signed_transaction": signed, "order_id": token])
            #expect(submitted.status == .ok)
            let admin = try await harness.keys.create(scope: .admin, name: "admin").secret
            let port = try #require(client.port)
            let requests = [
                get("/v1/accounts/alice/entitlements", key: harness.keyOne),
                get("/v1/accounts/alice/entitlements", key: harness.keyOne, extra: "Connection: keep-alive\r\n"),
                get("/v1/accounts/bob/entitlements", key: harness.keyOne),
                get("/v1/accounts/alice/entitlements", key: harness.keyTwo),
                get("/v1/accounts/alice/entitlements?at=2025-03-01T00:00:00Z", key: harness.keyOne),
                get("/v1/accounts/a%20b/entitlements", key: harness.keyOne),
                get("/v1/accounts/alice/entitlements", key: "sl_app_unknown"),
                get("/v1/accounts/alice/entitlements", key: nil),
                get("/v1/accounts/alice/entitlements", key: harness.keyOne, extra: "Connection: close\r\n"),
                get(
                    "/v1/accounts/alice/entitlements", key: harness.keyOne,
                    extra: "SubLedger-Consistency-Token: nonsense\r\n"),
                // An id with escapes, decoded alike (`PathSegment`).
                get("/v1/accounts/al%69ce/entitlements", key: harness.keyOne),
                // A key whose scope may not read an app's data (`RoutePermissions`).
                get("/v1/accounts/alice/entitlements", key: admin),
                get("/v1/accounts/alice/entitlementz", key: harness.keyOne),
            ]
            for request in requests {
                let outcome = await RawHTTPConnection.exchange(port: port, request: request, timeout: 20)
                let response = try #require(outcome.response, "\(request): \(outcome.summary)")
                collected.withLock { $0.append(Answer(response)) }
            }
            // HEAD: an answer with a length and no body, read until the server closes.
            let head =
                "HEAD /v1/accounts/alice/entitlements HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer "
                + "\(harness.keyOne)\r\nConnection: close\r\n\r\n"
            let received = await RawHTTPConnection.exchangeUntilClosed(
                port: port, request: Array(head.utf8), timeout: 20)
            let response = try #require(Self.headOnly(received), "HEAD: \(received.count) bytes")
            collected.withLock { $0.append(Answer(response)) }
            answeredHere.withLock { $0 = harness.eventLoopReads?.answeredHere.load(ordering: .relaxed) }
        }
        return Observed(
            answers: collected.withLock { $0 }, metrics: requestMetrics(registry), log: lines.value.withLock { $0 },
            answeredOnEventLoops: answeredHere.withLock { $0 })
    }

    /// The answer to a HEAD request in `bytes`: its head, and whatever followed it as the body (nothing).
    static func headOnly(_ bytes: [UInt8]) -> RawHTTPResponse? {
        guard bytes.count >= 4,
            let end = (0...(bytes.count - 4)).first(where: {
                bytes[$0] == 13 && bytes[$0 + 1] == 10 && bytes[$0 + 2] == 13 && bytes[$0 + 3] == 10
            })
        else { return nil }
        var lines = String(decoding: bytes[0..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { return nil }
        let headers = lines.compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        return RawHTTPResponse(status: status, headers: headers, body: Array(bytes[(end + 4)...]))
    }

    @Test func readsAreAnsweredAndRecordedAsTheRouterAnswersAndRecordsThem() async throws {
        let here = try await Self.observe(onEventLoops: true)
        let routed = try await Self.observe(onEventLoops: false)
        #expect(here.answers.count == 14)
        #expect(here.answers == routed.answers)
        #expect(here.metrics == routed.metrics)
        #expect(here.log == routed.log)
        // Sanity of what was compared: reads answered on the event loops (not the first of a key the caches do
        // not hold yet), a read with an entitlement, refusals, metrics and log lines of the route.
        #expect((here.answeredOnEventLoops ?? 0) >= 3)
        #expect(routed.answeredOnEventLoops == nil)
        #expect(here.answers.first?.status == 200)
        #expect(here.answers.first?.body.contains("\"entitlement_id\":\"pro\"") == true)
        #expect(
            here.answers.prefix(13).map(\.status) == [200, 200, 200, 200, 200, 400, 401, 401, 200, 400, 200, 403, 404])
        #expect(here.answers.first?.headers.suffix(1) == ["Server: SubLedger"])
        // The route's seven 200 answers, counted under the router's route name.
        let answered = here.metrics.filter { line in
            line.hasPrefix("hb_requests{") && line.contains("http_route=\"/v1/accounts/{account_id}/entitlements\"")
                && line.contains("http_request_method=\"GET\"") && line.contains("http_response_status_code=\"200\"")
        }
        #expect(answered.count == 1 && answered.first?.hasSuffix(" 7") == true, "\(here.metrics)")
        #expect(
            here.log.contains(
                "info Request id=true duration_ms=measured http.request.method=GET http.response.status_code=200 "
                    + "http.route=/v1/accounts/{account_id}/entitlements"),
            "\(here.log)")
    }

    /// The `Date` header of both ways is RFC 9110's IMF-fixdate, in the same place (before `Server`).
    @Test func theEventLoopsDateIsTheRoutersForm() {
        #expect(HTTPDate.text(secondsSince1970: 0) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDate.text(secondsSince1970: 1_795_700_700) == "Thu, 26 Nov 2026 13:45:00 GMT")
        #expect(HTTPDate.text(secondsSince1970: 951_782_400) == "Tue, 29 Feb 2000 00:00:00 GMT")
        var fields = HTTPFields()
        var date = ServerHeaders.DateText()
        ServerHeaders.append(to: &fields, date: &date)
        #expect(fields.map(\.name) == [.date, .server])
        #expect(fields[.server] == "SubLedger")
    }

    /// A server whose router answers every request it gets with `routed <path>` (after 200 ms for `/slow`), with
    /// the event loop's route in front of it reading a real database.
    struct Server: Sendable {
        var port: Int
        /// The app key's secret and id.
        var key: String
        var keyID: String
        var appID: Int64
        var pool: PostgresPool
        var keys: APIKeys
        var client: any TestClientProtocol
    }

    static func withServer(
        _ body: @Sendable (_ port: Int, _ key: String, _ appID: Int64, _ pool: PostgresPool) async throws -> Void,
        readsPool: (@Sendable (PostgresPool) -> PostgresPool)? = nil
    ) async throws {
        try await withServer(readsPool: readsPool) { server in
            try await body(server.port, server.key, server.appID, server.pool)
        }
    }

    static func withServer(
        readsPool: (@Sendable (PostgresPool) -> PostgresPool)? = nil, _ body: @Sendable (Server) async throws -> Void
    ) async throws {
        try await TestDatabase.withSchema(template: .ledger) { _, _, pool in
            try await Migrator.bundled(logger: TestDatabase.logger).migrate(pool)
            let catalog = CatalogStore(pool: pool, secretKeys: try SecretKeyring(keys: [SecretKey.generate()]))
            let (definitions, secrets) = try CatalogFile.read(H.catalogYAML)
            try await catalog.applyCatalog(definitions, secrets: secrets)
            let keys = APIKeys(store: APIKeyStore(pool: pool))
            let apps = AppDirectory(catalog: catalog)
            let (keyID, secret) = try await keys.create(bundleID: H.appOne, name: "reads")
            // The route answers from the caches only: fill them as a first request through the router would.
            let key = try #require(try await keys.authenticate(secret))
            let app = try await apps.app(for: key)
            // The accounts the tests read hold a consumable credit: a read that finds nothing goes to the router,
            // which tells an erased account (410) from one that holds nothing.
            for account in ["alice", "aA"] {
                try await pool.query(
                    "INSERT INTO account_credit_entries VALUES (\(app.appID), \(account), 'Production', 'c1', 'c1', 1)")
            }
            let route = EntitlementReadRoute(
                appData: AppDataAccess(
                    keys: keys, audit: AuditLog(store: AuditLogStore(pool: pool)), now: { H.day(1) }),
                apps: apps, reads: EntitlementReads(store: EntitlementReadStore(pool: readsPool?(pool) ?? pool)),
                now: { H.day(1) },
                metrics: RequestMetrics(), logger: TestDatabase.logger)
            let router = Router()
            router.get("slow") { _, _ in
                try await Task.sleep(for: .milliseconds(200))
                return "routed /slow"
            }
            router.on("**", method: .get) { request, _ in "routed \(request.uri.path)" }
            router.on("**", method: .post) { request, _ in "routed \(request.uri.path)" }
            let application = Application(
                router: router,
                server: HTTPServerBuilder { responder in
                    SubLedgerHTTP1Channel(responder: responder, idleTimeout: .seconds(600), entitlementReads: route)
                },
                configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: TestDatabase.logger)
            try await application.test(.live) { client in
                try await body(
                    Server(
                        port: try #require(client.port), key: secret, keyID: keyID, appID: app.appID, pool: pool,
                        keys: keys, client: client))
            }
        }
    }

    /// Every complete answer in `bytes`, in order.
    static func answers(in bytes: [UInt8]) -> [RawHTTPResponse] {
        var rest = bytes[...]
        var found: [RawHTTPResponse] = []
        while let response = RawHTTPConnection.parse(Array(rest), complete: false) {
            found.append(response)
            guard
                let headEnd = (rest.startIndex..<(rest.endIndex - 3)).first(where: {
                    rest[$0] == 13 && rest[$0 + 1] == 10 && rest[$0 + 2] == 13 && rest[$0 + 3] == 10
                })
            else { break }
            rest = rest[(headEnd + 4 + response.body.count)...]
        }
        return found
    }

    static func text(_ response: RawHTTPResponse) -> String { String(decoding: response.body, as: UTF8.self) }

    @Test func pipelinedRequestsAreAnsweredInOrder() async throws {
        try await Self.withServer { port, key, _, _ in
            // One write: a read answered here; while its statement runs, a slow request for the router and two
            // reads arrive and wait. They then go to the router in order: the reads too, since the router is still
            // answering the request before them.
            let pipelined =
                Self.get("/v1/accounts/alice/entitlements", key: key) + Self.get("/slow", key: nil)
                + Self.get("/v1/accounts/bob/entitlements", key: key)
                + Self.get("/v1/accounts/carol/entitlements", key: key, extra: "Connection: close\r\n")
            let received = await RawHTTPConnection.exchangeUntilClosed(
                port: port, request: Array(pipelined.utf8), timeout: 20)
            let answers = Self.answers(in: received)
            #expect(answers.map(\.status) == [200, 200, 200, 200])
            #expect(answers.count == 4)
            guard answers.count == 4 else { return }
            #expect(Self.text(answers[0]).hasPrefix("{\"account_id\":\"alice\",\"at\":\"2025-01-02T00:00:00.000Z\""))
            #expect(answers[0].header("Server") == "SubLedger")
            #expect(answers[0].header("Content-Type") == "application/json; charset=utf-8")
            #expect(Self.text(answers[1]) == "routed /slow")
            #expect(Self.text(answers[2]) == "routed /v1/accounts/bob/entitlements")
            #expect(Self.text(answers[3]) == "routed /v1/accounts/carol/entitlements")
        }
    }

    @Test func whatTheRouteCannotAnswerGoesToTheRouter() async throws {
        try await Self.withServer { port, key, appID, pool in
            // Still on the backfill list: answered from the chains, which only the router's read does.
            try await pool.query(
                "INSERT INTO account_entitlement_backfill (app_id, account_id) VALUES (\(appID), 'dave')")
            let cases: [(request: String, answer: String)] = [
                (Self.get("/v1/accounts/alice/entitlements", key: key), "{\"account_id\":\"alice\""),
                (Self.get("/v1/accounts/alice/entitlements", key: "sl_app_unknown"), "routed "),
                (Self.get("/v1/accounts/alice/entitlements?at=0", key: key), "routed "),
                (Self.get("/v1/accounts/alice/entitlements/", key: key), "routed "),
                // An id with escapes is decoded as the router decodes it (`PathSegment`) and answered here.
                (Self.get("/v1/accounts/a%41/entitlements", key: key), "{\"account_id\":\"aA\""),
                (Self.get("/v1/accounts/dave/entitlements", key: key), "routed /v1/accounts/dave/entitlements"),
                // Holds nothing: the router's read tells whether the account was erased.
                (Self.get("/v1/accounts/erin/entitlements", key: key), "routed /v1/accounts/erin/entitlements"),
                (
                    "POST /v1/accounts/alice/entitlements HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(key)\r\n"
                        + "Content-Length: 0\r\n\r\n", "routed "
                ),
                (
                    Self.get("/v1/accounts/alice/entitlements", key: key, extra: "Content-Length: 2\r\n") + "{}",
                    "routed "
                ),
            ]
            for (request, answer) in cases {
                let outcome = await RawHTTPConnection.exchange(port: port, request: request, timeout: 20)
                let response = try #require(outcome.response, "\(request): \(outcome.summary)")
                #expect(Self.text(response).hasPrefix(answer), "\(request)")
            }
        }
    }

    /// A connection remembers the key it presented last, until the key cache is dropped (a revocation anywhere).
    @Test func aKeyRevokedBetweenTwoReadsOfOneConnectionIsNotTakenAgain() async throws {
        try await Self.withServer { server in
            let headers: HTTPFields = [.authorization: "Bearer \(server.key)", .connection: "keep-alive"]
            let first = try await server.client.executeRequest(
                uri: "/v1/accounts/alice/entitlements", method: .get, headers: headers, body: nil)
            #expect(String(buffer: first.body).hasPrefix("{\"account_id\":\"alice\""))
            let again = try await server.client.executeRequest(
                uri: "/v1/accounts/alice/entitlements", method: .get, headers: headers, body: nil)
            #expect(String(buffer: again.body).hasPrefix("{\"account_id\":\"alice\""))
            // As a revocation's NOTIFY does in the service (`CacheInvalidationService`).
            #expect(try await server.keys.revoke(keyID: server.keyID))
            server.keys.invalidate()
            let revoked = try await server.client.executeRequest(
                uri: "/v1/accounts/alice/entitlements", method: .get, headers: headers, body: nil)
            #expect(String(buffer: revoked.body) == "routed /v1/accounts/alice/entitlements")
        }
    }

    @Test func aReadTheDatabaseFailsGoesToTheRouter() async throws {
        try await Self.withServer(
            { port, key, _, _ in
                let outcome = await RawHTTPConnection.exchange(
                    port: port, request: Self.get("/v1/accounts/alice/entitlements", key: key), timeout: 20)
                let response = try #require(outcome.response, "\(outcome.summary)")
                #expect(Self.text(response) == "routed /v1/accounts/alice/entitlements")
            },
            readsPool: { pool in
                // A pool of its own, shut: every statement through it fails at once.
                let reads = PostgresPool(configuration: pool.configuration)
                reads.close()
                return reads
            })
    }
}
