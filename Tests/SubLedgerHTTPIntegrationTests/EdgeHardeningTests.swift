import AppStore
import CatalogFile
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import PostgresLibPQ
import SubLedgerCore
import SubLedgerStore
import Synchronization
import Testing

@testable import SubLedgerHTTP
@testable import SubLedgerUseCases

/// What the HTTP edge does with hostile input: bounded work for reports, 4xx (never 5xx) for text the
/// database cannot hold, framing errors and oversized bodies refused at once, and 401s that carry a challenge
/// and reveal nothing about the configuration.
@Suite struct EdgeHardeningTests {
    typealias H = ServiceHarness

    /// Submits one transaction (so a chain exists) and copies it `count` times as unclaimed rows whose ids are
    /// `prefix` followed by a number: the ledger as a crafted input could once leave it.
    static func insertUnclaimedCopies(_ harness: H, client: some TestClientProtocol, prefix: String, count: Int)
        async throws
    {
        let signed = try harness.signedTransaction(id: "9100", purchasedOnDay: 0, expiresOnDay: 30)
        let submitted = try await client.call(
            .post, "/v1/transactions", key: harness.keyOne, json: ["account_id": "seed", "signed_transaction": signed])
        #expect(submitted.status == .ok)
        try await harness.pool.query(
            """
            INSERT INTO transactions (app_id, environment, transaction_id, original_transaction_id, product_id,
                account_id, purchase_date, expires_date, ownership_type, source, payload)
            SELECT app_id, environment, \(prefix) || g::text, original_transaction_id, product_id, NULL, purchase_date,
                expires_date, ownership_type, source, payload
            FROM transactions, generate_series(1, \(count)::integer) g WHERE transaction_id = '9100'
            """)
    }

    static func adminHeaders(_ key: String) -> HTTPFields { [.authorization: "Bearer \(key)"] }

    // MARK: - reports

    /// A 10 KB transaction id with a run of spaces took the table renderer 33–104 s a row; it now answers (six
    /// rows, over real HTTP). The renderer's linear time is `ReportRenderingTests`' subject.
    @Test func unclaimedTableWithATenKilobyteSpacedIdAnswers() async throws {
        try await H.run { harness, client in
            let admin = try await harness.keys.create(bundleID: nil, name: "ops").secret
            let spaced = "1" + String(repeating: " ", count: 10_000) + "2"
            try await Self.insertUnclaimedCopies(harness, client: client, prefix: spaced, count: 6)
            let table = try await client.executeRequest(
                uri: "/v1/admin/reports/unclaimed?format=table", method: .get, headers: Self.adminHeaders(admin),
                body: nil)
            #expect(table.status == .ok)
            #expect(String(buffer: table.body).contains(spaced))
        }
    }

    /// More table reports over a 10 KB spaced id than the cooperative pool has threads, at once, each on its own
    /// connection: every one answers, and so does `/health/live` meanwhile. (That health answers while such work
    /// is still running is `heavyWorkRunsApartFromTheRequestThreads`' subject, with the work held until it has.)
    @Test func concurrentTableReportsAllAnswer() async throws {
        try await H.run { harness, client in
            let admin = try await harness.keys.create(bundleID: nil, name: "ops").secret
            try await Self.insertUnclaimedCopies(
                harness, client: client, prefix: "1" + String(repeating: " ", count: 10_000) + "2", count: 2)
            let port = try #require(client.port)
            let reports = 2 * max(2, ProcessInfo.processInfo.activeProcessorCount)
            let request =
                "GET /v1/admin/reports/unclaimed?format=table HTTP/1.1\r\nHost: localhost\r\n"
                + "Authorization: Bearer \(admin)\r\n\r\n"
            async let liveMeanwhile = client.executeRequest(uri: "/health/live", method: .get, headers: [:], body: nil)
            let statuses = try await withThrowingTaskGroup(of: Int?.self) { group in
                for _ in 0..<reports {
                    group.addTask {
                        await RawHTTPConnection.exchange(port: port, request: request, timeout: 120).response?.status
                    }
                }
                var statuses: [Int?] = []
                for try await status in group { statuses.append(status) }
                return statuses
            }
            let live = try await liveMeanwhile
            #expect(statuses.count == reports)
            #expect(statuses.allSatisfy { $0 == 200 }, "statuses \(statuses)")
            #expect(live.status == .ok)
        }
    }

    /// CPU-heavy work of a request (rendering a report) runs on a thread pool of its own, not on the cooperative
    /// pool or the event loops that serve requests: with more such jobs running than there are cores, each held
    /// until the test lets it go, `/health/live` answers while every one of them is still running.
    @Test func heavyWorkRunsApartFromTheRequestThreads() async throws {
        try await H.run { _, client in
            let jobs = 2 * max(2, ProcessInfo.processInfo.activeProcessorCount)
            let gate = DispatchSemaphore(value: 0)
            let running = HeldJobs()
            try await withThrowingTaskGroup(of: String?.self) { group in
                for _ in 0..<jobs {
                    group.addTask {
                        try await AdminController.offRequestThreads {
                            running.count.add(1, ordering: .relaxed)
                            gate.wait()  // held, as a long render would hold it
                            running.count.subtract(1, ordering: .relaxed)
                            return Thread.current.name
                        }
                    }
                }
                // The blocking pool may start fewer threads than jobs; wait until it holds as many as it will.
                var held = 0
                for _ in 0..<3000 where held < jobs {
                    try await Task.sleep(for: .milliseconds(20))
                    held = running.count.load(ordering: .relaxed)
                    if held >= 2 { break }
                }
                #expect(held >= 2, "at least two jobs are held: more than the cooperative pool's threads here")
                let live = try await client.executeRequest(uri: "/health/live", method: .get, headers: [:], body: nil)
                #expect(live.status == .ok)
                #expect(running.count.load(ordering: .relaxed) == held, "answered while every held job still ran")
                for _ in 0..<jobs { gate.signal() }
                for try await name in group {
                    // NIO names the threads of its blocking-work pool `...TP-#n`.
                    #expect(name?.contains("TP-#") == true, "the work ran on \(name ?? "an unnamed thread")")
                }
            }
        }
    }

    // MARK: - text at the edge

    /// Text libpq refuses (NUL, invalid UTF-8) and ids of unbounded length answer 4xx with the error shape, on
    /// every route that takes text, instead of 500 `internal_error`.
    @Test func nulInvalidUTF8AndOverlongTextAnswer4xx() async throws {
        try await H.run { harness, client in
            let admin = try await harness.keys.create(bundleID: nil, name: "ops").secret
            func expect4xx(
                _ method: HTTPRequest.Method, _ uri: String, key: String?, json: [String: String]? = nil,
                raw: ByteBuffer? = nil, code: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
            ) async throws {
                let answer = try await client.call(method, uri, key: key, json: json, raw: raw)
                #expect(
                    (400..<500).contains(answer.status.code), "\(uri): \(answer.status)", sourceLocation: sourceLocation
                )
                #expect(answer.json.errorCode != nil, "\(uri) has the error shape", sourceLocation: sourceLocation)
                if let code { #expect(answer.json.errorCode == code, sourceLocation: sourceLocation) }
            }
            let key = harness.keyOne
            let receipt = Data("a receipt".utf8).base64EncodedString()
            // A client transaction id: NUL, too long.
            try await expect4xx(
                .post, "/v1/receipts", key: key,
                json: ["account_id": "alice", "receipt_data": receipt, "transaction_id": "1\u{0}"],
                code: "invalid_text")
            try await expect4xx(
                .post, "/v1/receipts", key: key,
                json: [
                    "account_id": "alice", "receipt_data": receipt,
                    "transaction_id": String(repeating: "1", count: 10_000),
                ],
                code: "invalid_transaction_id")
            // Account ids in bodies and paths, product ids, JWS text.
            try await expect4xx(
                .post, "/v1/orders", key: key, json: ["account_id": "al\u{0}ice", "product_id": "pro.monthly"])
            try await expect4xx(.get, "/v1/accounts/al%00ice/entitlements", key: key, code: "invalid_account_id")
            try await expect4xx(
                .post, "/v1/orders", key: key,
                json: ["account_id": "alice", "product_id": String(repeating: "p", count: 10_000)],
                code: "invalid_product_id")
            try await expect4xx(
                .post, "/v1/transactions", key: key, json: ["account_id": "alice", "signed_transaction": "a.b c.d"],
                code: "malformed_jws")
            // Instants no date arithmetic may see: Int64's limits, before 1970, after 9999.
            for at in [
                "9223372036854775807", "-9223372036854775808", "-1", "253402300800000", "+10000-01-01T00:00:00Z",
            ] {
                try await expect4xx(.get, "/v1/accounts/alice/entitlements?at=\(at)", key: key, code: "invalid_time")
            }
            // A body that is not UTF-8.
            try await expect4xx(
                .post, "/v1/orders", key: key,
                raw: ByteBuffer(bytes: Array("{\"account_id\":\"a".utf8) + [0xFF, 0xFE] + Array("\"}".utf8)),
                code: "invalid_text")
            // The admin side: a search, an app, a report id.
            var headers: HTTPFields = [.authorization: "Bearer \(admin)"]
            for uri in ["/admin?q=%00", "/admin?q=a%FFb", "/admin?q=" + String(repeating: "a", count: 300)] {
                headers[.authorization] = "Basic " + Data("ops:\(admin)".utf8).base64EncodedString()
                let page = try await client.executeRequest(uri: uri, method: .get, headers: headers, body: nil)
                #expect(page.status == .badRequest, "\(uri)")
            }
            try await expect4xx(
                .get, "/v1/admin/reports/summary?app=com.example%00", key: admin, code: "invalid_argument")
            try await expect4xx(.get, "/v1/admin/reports/account/al%00ice", key: admin, code: "invalid_argument")
            try await expect4xx(.get, "/v1/admin/reports/original/1%002", key: admin, code: "invalid_argument")
            // The notification route, without authentication: a V1 `bid` with NUL, a V2 claim with NUL.
            try await expect4xx(
                .post, "/v1/notifications/appstore", key: nil,
                json: ["notification_type": "DID_RENEW", "bid": "com.example.one\u{0}", "password": "x"])
            let claimed = try Self.signedNotification(
                harness, bundleID: "com.example.one\u{0}", environment: "Production")
            try await expect4xx(.post, "/v1/notifications/appstore", key: nil, raw: claimed)
            // Nothing was stored by any of it.
            let stored = try await harness.pool.query("SELECT count(*) FROM receipts").single()
            #expect(try stored.decode(Int.self, at: 0) == 0)
        }
    }

    /// The body check finds exactly the NULs a JSON decoder would produce: `\u0000` whose backslash is not
    /// itself escaped.
    @Test func escapedNULIsFoundOnlyWhereItDecodesToNUL() {
        #expect(RequestText.containsEscapedNUL(Array(#"{"a":"x\u0000"}"#.utf8)))
        #expect(RequestText.containsEscapedNUL(Array(#"{"a":"\\\u0000"}"#.utf8)))
        #expect(!RequestText.containsEscapedNUL(Array(#"{"a":"\\u0000"}"#.utf8)))
        #expect(!RequestText.containsEscapedNUL(Array(#"{"a":"\u00"#.utf8)), "a cut escape")
        #expect(!RequestText.containsEscapedNUL(Array(#"{"a":"\u0001 u0000"}"#.utf8)))
    }

    /// The body's scan, which jumps between backslashes, finds what the byte-by-byte scan finds: on texts made of
    /// backslashes, `u`, zeros and other bytes, escapes cut at the end included.
    @Test func theBodysScanAgreesWithTheByteByByteScan() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array(#"\\u00a"x"#.utf8)
        for _ in 0..<20_000 {
            let text = (0..<Int.random(in: 0...24, using: &generator)).map { _ in
                alphabet.randomElement(using: &generator)!
            }
            let scanned = text.withUnsafeBytes { RequestText.containsEscapedNUL($0) }
            #expect(scanned == RequestText.containsEscapedNUL(text[...]), "\(String(decoding: text, as: UTF8.self))")
        }
        #expect(Array(#"x\u0000"#.utf8).withUnsafeBytes { RequestText.containsEscapedNUL($0) })
        #expect(!Array(#"x\\u0000"#.utf8).withUnsafeBytes { RequestText.containsEscapedNUL($0) })
    }

    /// The net under the edge's checks: a value the database refuses (a NUL parameter, a data exception such as
    /// a timestamp out of range) answers 400 `invalid_value`; any other database failure stays a 500.
    @Test func databaseRefusalOfAValueIsA400() async throws {
        let router = Router(context: SubLedgerRequestContext.self)
        router.add(middleware: ErrorMiddleware())
        router.get("nul") { _, _ -> String in
            throw PostgresError(.invalidParameter, message: "parameter $1 contains a NUL byte")
        }
        router.get("range") { _, _ -> String in
            throw PostgresError(.queryFailed, message: "timestamp out of range", sqlState: .datetimeFieldOverflow)
        }
        router.get("fault") { _, _ -> String in
            throw PostgresError(.queryFailed, message: "relation does not exist", sqlState: SQLState(rawValue: "42P01"))
        }
        try await Application(router: router).test(.router) { client in
            for (uri, status, code) in [
                ("/nul", 400, "invalid_value"), ("/range", 400, "invalid_value"), ("/fault", 500, "internal_error"),
            ] {
                let answer = try await client.call(.get, uri, key: nil)
                #expect(Int(answer.status.code) == status, "\(uri)")
                #expect(answer.json.errorCode == code, "\(uri)")
            }
        }
    }

    /// A Citus coordinator that loses a worker under a statement (the worker restarting) relays libpq's error on
    /// that link as XX000 "while executing command on HOST:PORT": the database is unavailable for the moment, a 503
    /// with `Retry-After` that the client retries, not a 500. The error below is the one a `COMMIT` met in a load
    /// run while a worker restarted; an XX000 from anywhere else stays a 500.
    @Test func aCitusWorkerLostUnderAStatementIsA503WithRetryAfter() async throws {
        let router = Router(context: SubLedgerRequestContext.self)
        router.add(middleware: ErrorMiddleware())
        router.post("commit") { _, _ -> String in
            var lost = PostgresError(
                .queryFailed, message: "server closed the connection unexpectedly", sqlState: .internalError)
            lost.context = "while executing command on 127.0.0.1:25601"
            lost.query = "COMMIT"
            throw lost
        }
        router.post("relayed-context") { _, _ -> String in
            var lost = PostgresError(
                .queryFailed, message: "SSL SYSCALL error: EOF detected", sqlState: .internalError)
            lost.context =
                "PL/pgSQL function record_input() line 4 at SQL statement\nwhile executing command on w1:5432"
            throw lost
        }
        router.post("internal") { _, _ -> String in
            var fault = PostgresError(.queryFailed, message: "could not open relation", sqlState: .internalError)
            fault.context = "PL/pgSQL function record_input() line 4 at SQL statement"
            throw fault
        }
        try await Application(router: router).test(.router) { client in
            for uri in ["/commit", "/relayed-context"] {
                let answer = try await client.call(.post, uri, key: nil)
                #expect(answer.status == .serviceUnavailable, "\(uri)")
                #expect(answer.json.errorCode == "database_unavailable", "\(uri)")
                #expect(answer.headers[.retryAfter] == "5", "\(uri)")
            }
            let fault = try await client.call(.post, "/internal", key: nil)
            #expect(fault.status == .internalServerError)
            #expect(fault.json.errorCode == "internal_error")
        }
    }

    /// A `Content-Length` above the limit is refused with 413 at once, not after the idle timeout.
    @Test func oversizedContentLengthIsRefusedAtOnce() async throws {
        try await H.run { _, client in
            let outcome = await RawHTTPConnection.exchange(
                port: try #require(client.port),
                request:
                    "POST /v1/notifications/appstore HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                    + "Content-Length: 10000000\r\n\r\n{",
                timeout: 10)
            // A server that waited for the body would answer only when its idle timeout (the harness's: minutes)
            // closed the connection, after this exchange gives up (10 s): an answer at all is an answer before the
            // body.
            let answer = try #require(outcome.response, "\(outcome.summary)")
            #expect(answer.status == 413)
            #expect(answer.text.contains("body_too_large"))
        }
    }

    /// Broken chunked framing and a body cut short by the client are the client's fault: 400, not 500.
    @Test func brokenFramingAnswers400() async throws {
        try await H.run { _, client in
            let port = try #require(client.port)
            let chunked = await RawHTTPConnection.exchange(
                port: port,
                request:
                    "POST /v1/notifications/appstore HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "5\r\n{\"a\":\r\nzz-not-a-size\r\n\r\n",
                timeout: 10)
            let framing = try #require(chunked.response, "\(chunked.summary)")
            #expect(framing.status == 400, "\(framing.text)")
            #expect(framing.text.contains("\"malformed_body\""))

            let cut = await RawHTTPConnection.exchange(
                port: port,
                request:
                    "POST /v1/notifications/appstore HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100\r\n\r\n{\"signed",
                timeout: 10, finishSending: true)
            let early = try #require(cut.response, "\(cut.summary)")
            #expect(early.status == 400, "\(early.text)")
            #expect(early.text.contains("\"malformed_body\""))

            // The service still serves.
            let live = try await client.executeRequest(uri: "/health/live", method: .get, headers: [:], body: nil)
            #expect(live.status == .ok)
        }
    }

    // MARK: - authentication answers

    /// Every 401 carries `WWW-Authenticate`: Bearer on the API, Basic on the admin page.
    @Test func unauthorizedAnswersCarryAChallenge() async throws {
        try await H.run { _, client in
            for (uri, key, scheme) in [
                ("/v1/accounts/alice/entitlements", nil, "Bearer"),
                ("/v1/accounts/alice/entitlements", "sl_app_nope", "Bearer"),
                ("/v1/admin/reports/summary", nil, "Bearer"), ("/v1/admin/reports/summary", "sl_admin_nope", "Bearer"),
                ("/admin", nil, "Basic"), ("/admin", "sl_admin_nope", "Basic"),
            ] as [(String, String?, String)] {
                let answer = try await client.call(.get, uri, key: key)
                #expect(answer.status == .unauthorized, "\(uri)")
                #expect(answer.headers[.wwwAuthenticate]?.hasPrefix(scheme) == true, "\(uri) key \(key ?? "none")")
            }
        }
    }

    /// The notification route is open: an unknown bundle id, an environment the app does not accept and a forged
    /// signature answer exactly alike, and so do a V1 `bid` that is unknown and one with a wrong shared secret.
    @Test func notificationRefusalsDoNotRevealTheConfiguration() async throws {
        try await H.run { harness, client in
            // A configured Production app without `apple_app_id` cannot verify Production data (500
            // `app_misconfigured` inside); its notifications must be answered like an unknown app's.
            let (extra, extraSecrets) = try CatalogFile.read(
                """
                apps:
                  - bundle_id: com.example.three
                    apple_app_id: 1999999999
                    environments: [production]
                    products:
                      - { product_id: three.monthly, type: auto_renewable, subscription_group_id: "g3", entitlements: [pro] }
                """)
            try await harness.catalog.applyCatalog(extra, secrets: extraSecrets)
            let forger = JWSSigner(
                chain: try SigningChain.generate(
                    notValidBefore: Instant(millisecondsSince1970: 1_600_000_000_000),
                    notValidAfter: Instant(millisecondsSince1970: 2_000_000_000_000)))
            let bodies = [
                try Self.signedNotification(harness, bundleID: "com.example.unknown", environment: "Production"),
                try Self.signedNotification(harness, bundleID: H.appOne, environment: "Xcode"),
                try Self.signedNotification(harness, bundleID: H.appOne, environment: "Production", signer: forger),
                try Self.signedNotification(harness, bundleID: "com.example.three", environment: "Production"),
            ]
            var answers: [String] = []
            for body in bodies {
                let answer = try await client.call(.post, "/v1/notifications/appstore", key: nil, raw: body)
                #expect(answer.status == .unauthorized)
                #expect(answer.headers[.wwwAuthenticate] != nil)
                answers.append("\(answer.status.code) \(answer.json.errorCode ?? "") \(answer.json.errorMessage ?? "")")
            }
            #expect(Set(answers).count == 1, "\(answers)")

            var v1Answers: [String] = []
            for bid in ["com.example.unknown", H.appOne] {
                let answer = try await client.call(
                    .post, "/v1/notifications/appstore", key: nil,
                    json: ["notification_type": "DID_RENEW", "bid": bid, "password": "wrong", "environment": "PROD"])
                #expect(answer.status == .unauthorized)
                v1Answers.append(
                    "\(answer.status.code) \(answer.json.errorCode ?? "") \(answer.json.errorMessage ?? "")")
            }
            #expect(Set(v1Answers).count == 1, "\(v1Answers)")
        }
    }

    /// A V2 notification body naming `bundleID` and `environment`, signed by `signer` (the harness's trusted one).
    static func signedNotification(
        _ harness: H, bundleID: String, environment: String, signer: JWSSigner? = nil
    ) throws -> ByteBuffer {
        let payload = ResponseBodyV2DecodedPayload(
            rawNotificationType: "TEST", rawSubtype: nil, notificationUUID: UUID().uuidString.lowercased(),
            data: NotificationData(
                rawEnvironment: environment, appAppleID: H.appleAppIDOne, bundleID: bundleID, bundleVersion: "1",
                signedTransactionInfo: nil, signedRenewalInfo: nil, rawStatus: 1),
            version: "2.0", signedDate: H.day(0).millisecondsSince1970)
        let body = try JSONEncoder().encode(["signedPayload": try (signer ?? harness.signer).sign(payload)])
        return ByteBuffer(bytes: body)
    }
}

/// How many held jobs are running.
private final class HeldJobs: Sendable {
    let count = Atomic(0)
}
