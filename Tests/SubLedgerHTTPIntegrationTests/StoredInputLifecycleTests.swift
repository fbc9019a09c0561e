import AppStore
import AppStoreStore
import Foundation
import NIOCore
import PostgresLibPQ
import SubLedgerCore
import SubLedgerHTTP
import SubLedgerStore
import SubLedgerTestSupport
import SubLedgerUseCases
import Synchronization
import Testing

/// Stored inputs that cannot be applied: recorded with their error, retried with exponential backoff, then
/// quarantined; never stalling the renewal job. Stranded notifications are the job's work too; replays are
/// stored once; concurrent deliveries of one notification say `applied` once.
@Suite struct StoredInputLifecycleTests {
    typealias H = ServiceHarness

    /// A gateway trusting the harness's signing chain; Apple (verifyReceipt) refuses connections, and the
    /// circuit breaker opens after the first failure so later calls are refused without waiting.
    static func gateway(_ harness: ServiceHarness, retry: StoredInputRetry) throws -> AppleGateway {
        try AppleGateway(
            configuration: AppleConfiguration(
                verifyReceiptProductionURL: "http://127.0.0.1:9/verifyReceipt",
                verifyReceiptSandboxURL: "http://127.0.0.1:9/sandbox/verifyReceipt", trustAppleRoot: false,
                timeout: .seconds(2), connectTimeout: .milliseconds(300), circuitBreakerThreshold: 1,
                circuitBreakerCooldown: .seconds(3_600), retry: retry),
            additionalRoots: [harness.signer.chain.trustedRoot], logger: TestDatabase.logger)
    }

    static func poller(
        _ harness: ServiceHarness, retry: StoredInputRetry, pendingAge: Duration = .zero
    ) throws -> RenewalPoller {
        var configuration = RenewalPoller.Configuration(worker: "lifecycle")
        configuration.requestsPerSecond = 100_000
        configuration.once = true
        configuration.pendingAge = pendingAge
        let ingestion = Ingestion(
            store: harness.store, catalog: harness.catalog, apple: try gateway(harness, retry: retry),
            logger: TestDatabase.logger, now: { harness.clock.now })
        return RenewalPoller(
            configuration: configuration, queue: PollQueue(pool: harness.pool), store: harness.store,
            catalog: harness.catalog, ingestion: ingestion, logger: TestDatabase.logger, now: { harness.clock.now })
    }

    /// Runs `body`, failing the test (instead of hanging it) if it takes longer than `limit`.
    static func within<T: Sendable>(_ limit: Duration, _ body: @escaping @Sendable () async throws -> T) async throws
        -> T
    {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(for: limit)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else { throw TimeLimitExceeded() }
            return value
        }
    }

    struct TimeLimitExceeded: Error {}

    /// Every application of a ledger input fails inside the database (a stand-in for any poison input).
    static func poisonTheLedger(_ pool: PostgresPool) async throws {
        try await pool.execute(
            script: """
                CREATE FUNCTION poison() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN RAISE EXCEPTION 'poisoned input'; END $$;
                CREATE TRIGGER poison BEFORE INSERT ON ledger_entries FOR EACH ROW EXECUTE FUNCTION poison();
                """)
    }

    /// The harness's clock is pinned in 2025; a row stored now is dated by the database's clock.
    static func receivedLongAgo(_ pool: PostgresPool, _ id: Int64) async throws {
        try await pool.query("UPDATE receipts SET received_at = to_timestamp(0) WHERE receipt_id = \(id)")
    }

    static func row(_ pool: PostgresPool, receipt id: Int64) async throws -> (
        status: String, attempts: Int32, error: String?
    ) {
        let row = try await pool.query(
            "SELECT status, attempts, last_error FROM receipts WHERE receipt_id = \(id)"
        ).single()
        return (
            try row.decode(String.self, at: 0), try row.decode(Int32.self, at: 1), try row.decode(String?.self, at: 2)
        )
    }

    /// A stored input whose application fails is recorded with its error and backs off; the cycle
    /// ends (rather than claiming the same input again and again), and in the end the input is quarantined.
    @Test func aStoredInputThatFailsToApplyIsRecordedBacksOffAndIsQuarantined() async throws {
        try await H.run { harness, _ in
            let app = try #require(try await harness.catalog.app(bundleID: H.appOne))
            let token = try harness.signedTransaction(id: "5001", purchasedOnDay: 0, expiresOnDay: 30)
            let id = try await harness.store.storeSubmission(
                kind: .signedTransaction, body: token, account: try AccountID("paula"), app: app)
            try await Self.receivedLongAgo(harness.pool, id)
            try await Self.poisonTheLedger(harness.pool)
            let retry = StoredInputRetry(base: .seconds(30), maximum: .seconds(3_600), maximumAttempts: 3)
            let poller = try Self.poller(harness, retry: retry)

            let first = try await Self.within(.seconds(20)) { try await poller.runCycle() }
            #expect(first.errors == 1)
            var stored = try await Self.row(harness.pool, receipt: id)
            #expect(stored.status == "retry")
            #expect(stored.attempts == 2)
            #expect(stored.error?.contains("poisoned input") == true)
            // Not due again before its backoff (30 s × 2 after the second attempt).
            harness.clock.set(H.start.adding(milliseconds: 59_000))
            #expect(try await Self.within(.seconds(20)) { try await poller.runCycle() }.checked == 0)
            harness.clock.set(H.start.adding(milliseconds: 61_000))
            let third = try await Self.within(.seconds(20)) { try await poller.runCycle() }
            #expect(third.checked == 1)
            stored = try await Self.row(harness.pool, receipt: id)
            #expect(stored.status == "quarantined")
            #expect(stored.attempts == 3)
            harness.clock.set(H.day(10))
            #expect(try await Self.within(.seconds(20)) { try await poller.runCycle() }.checked == 0)
        }
    }

    /// An input whose application ends the job (a trap: no outcome is ever recorded and its lease
    /// runs out) is quarantined after the second such attempt, not retried until its attempts run out.
    @Test func anInputThatKillsTheJobTwiceIsQuarantined() async throws {
        try await H.run { harness, _ in
            let app = try #require(try await harness.catalog.app(bundleID: H.appOne))
            let id = try await harness.store.storeSubmission(
                kind: .appReceipt, body: "cG9pc29u", account: try AccountID("trap"), app: app)
            try await Self.receivedLongAgo(harness.pool, id)
            let queue = PollQueue(pool: harness.pool)
            // Two pollers in turn claim it and die while applying it (nothing recorded, lease never given back).
            for (minute, worker) in [(0, "dead-1"), (10, "dead-2")] {
                harness.clock.set(H.start.adding(milliseconds: Int64(minute) * 60_000))
                let claimed = try await queue.claimPendingInputs(
                    limit: 10, pendingAge: .zero, lease: .seconds(60), worker: worker, now: harness.clock.now)
                #expect(claimed.map(\.submissionID) == [id])
            }
            harness.clock.set(H.start.adding(milliseconds: 30 * 60_000))
            let poller = try Self.poller(harness, retry: StoredInputRetry())
            let report = try await poller.runCycle()
            #expect(report.quarantined == 1)
            #expect(report.checked == 0)
            let stored = try await Self.row(harness.pool, receipt: id)
            #expect(stored.status == "quarantined")
            #expect(stored.error?.contains("lease ran out") == true)
        }
    }

    /// A receipt Apple keeps failing on backs off exponentially, not every 30 s, and ends in a
    /// terminal state (the breaker refuses at once after the first refused connection).
    @Test func retriesOfAStoredReceiptBackOffExponentiallyAndEndQuarantined() async throws {
        try await H.run { harness, client in
            let app = try #require(try await harness.catalog.app(bundleID: H.appOne))
            let id = try await harness.store.storeSubmission(
                kind: .appReceipt, body: "bm90IGEgcmVjZWlwdA==", account: try AccountID("rick"), app: app)
            try await Self.receivedLongAgo(harness.pool, id)
            let retry = StoredInputRetry(base: .seconds(30), maximum: .seconds(3_600), maximumAttempts: 4)
            let poller = try Self.poller(harness, retry: retry)
            var elapsed: Int64 = 0
            var waits: [Int64] = []
            for _ in 0..<2 {
                #expect(try await poller.runCycle().checked == 1)
                let due = try await harness.pool.query(
                    """
                    SELECT (extract(epoch FROM next_attempt_at) * 1000)::bigint FROM receipts WHERE receipt_id = \(id)
                    """
                )
                .single().decode(Int64?.self, at: 0)
                let next = try #require(due)
                waits.append(next - H.start.millisecondsSince1970 - elapsed)
                elapsed = next - H.start.millisecondsSince1970
                harness.clock.set(H.start.adding(milliseconds: elapsed))
            }
            #expect(waits == [60_000, 120_000])
            #expect(try await poller.runCycle().checked == 1)  // the fourth attempt, the last
            let stored = try await Self.row(harness.pool, receipt: id)
            #expect(stored.status == "quarantined")
            #expect(stored.error != nil)

            // The terminal state is listed by the `quarantined` report, with its last error.
            let admin = try await harness.keys.create(bundleID: nil, name: "ops").secret
            let report = try await client.call(.get, "/v1/admin/reports/quarantined?app=\(H.appOne)", key: admin)
            #expect(report.status == .ok)
            let rows = report.json["rows"] as? [[String: Any]] ?? []
            #expect(rows.count == 1)
            #expect((rows.first?["id"] as? Int).map(Int64.init) == id)
            #expect(rows.first?["input"] as? String == "receipt")
            #expect((rows.first?["last_error"] as? String ?? rows.first?["lastError"] as? String) != nil)
        }
    }

    /// A notification stored but never applied (the process died between the two) is applied by
    /// the job once it is older than the pending age.
    @Test func theJobAppliesAStoredNotificationLeftPending() async throws {
        try await H.run { harness, _ in
            let app = try #require(try await harness.catalog.app(bundleID: H.appOne))
            let transaction = try harness.signedTransaction(id: "6001", purchasedOnDay: 0, expiresOnDay: 30)
            let body = try harness.notificationBody(
                type: "SUBSCRIBED", subtype: "INITIAL_BUY", transaction: transaction, onDay: 0)
            let rowID = try await harness.pool.query(
                """
                INSERT INTO notifications (app_id, notification_id, version, notification_type, environment, body,
                    received_at)
                VALUES (\(app.appID), 'stranded', 'v2', 'SUBSCRIBED', 'Production', \(String(buffer: body)),
                    \(PostgresValue.timestamptz(millisecondsSince1970: H.start.millisecondsSince1970))) RETURNING
                    notification_row_id
                """
            ).single().decode(Int64.self, at: 0)
            let poller = try Self.poller(harness, retry: StoredInputRetry(), pendingAge: .seconds(120))

            #expect(try await poller.runCycle().notifications == 0)  // younger than the pending age: left alone
            harness.clock.set(H.start.adding(milliseconds: 121_000))
            let report = try await poller.runCycle()
            #expect(report.notifications == 1)
            #expect(try await harness.store.notificationStatus(rowID) == "applied")
            let chain = try await harness.store.chain(
                ChainKey(environment: .production, chainID: "6001"), app: app)
            #expect(chain != nil)
            #expect(try await poller.runCycle().checked == 0)
        }
    }

    /// a V1 notification is stored without its password, so the job verifies the
    /// stored body with the app's current shared secret; it is applied like any other stranded input.
    @Test func theJobAppliesAStoredV1NotificationWithoutItsPassword() async throws {
        try await H.run { harness, _ in
            let app = try #require(try await harness.catalog.app(bundleID: H.appOne))
            let redacted = """
                {"notification_type": "INITIAL_BUY", "environment": "PROD", "bid": "\(H.appOne)", "bvrs": "1",
                 "unified_receipt": {"status": 0, "environment": "Production", "latest_receipt": "BASE64",
                   "latest_receipt_info": [{"product_id": "pro.monthly", "transaction_id": "6101",
                     "original_transaction_id": "6101", "purchase_date_ms": "\(H.day(0).millisecondsSince1970)",
                     "expires_date_ms": "\(H.day(30).millisecondsSince1970)"}],
                   "pending_renewal_info": []}}
                """
            let rowID = try await harness.pool.query(
                """
                INSERT INTO notifications (app_id, notification_id, version, notification_type, environment, body,
                    received_at)
                VALUES (\(app.appID), 'stranded-v1', 'v1', 'INITIAL_BUY', 'Production', \(redacted),
                    \(PostgresValue.timestamptz(millisecondsSince1970: H.start.millisecondsSince1970))) RETURNING
                    notification_row_id
                """
            ).single().decode(Int64.self, at: 0)
            let poller = try Self.poller(harness, retry: StoredInputRetry(), pendingAge: .seconds(120))
            harness.clock.set(H.start.adding(milliseconds: 121_000))
            #expect(try await poller.runCycle().notifications == 1)
            #expect(try await harness.store.notificationStatus(rowID) == "applied")
            let chain = try await harness.store.chain(
                ChainKey(environment: .production, chainID: "6101"), app: app)
            #expect(chain != nil)
            // The stored body still holds no password after the job verified it.
            let stored = try await harness.pool.query(
                "SELECT body FROM notifications WHERE notification_row_id = \(rowID)"
            ).single().decode(String.self, at: 0)
            #expect(!stored.contains("password"))
        }
    }

    /// A replayed submission finds the stored row instead of storing a second copy.
    @Test func aReplayedSubmissionIsStoredOnce() async throws {
        try await H.run { harness, _ in
            let app = try #require(try await harness.catalog.app(bundleID: H.appOne))
            let account = try AccountID("rosa")
            let first = try await harness.store.storeSubmission(
                kind: .appReceipt, body: "cmVjZWlwdA==", account: account, app: app)
            let second = try await harness.store.storeSubmission(
                kind: .appReceipt, body: "cmVjZWlwdA==", account: account, app: app)
            #expect(first == second)
            let other = try await harness.store.storeSubmission(
                kind: .appReceipt, body: "cmVjZWlwdA==", account: try AccountID("sam"), app: app)
            #expect(other != first)
            let count = try await harness.pool.query("SELECT count(*) FROM receipts").single().decode(Int64.self, at: 0)
            #expect(count == 2)
        }
    }

    /// One new notification delivered concurrently many times (as to several instances) is
    /// answered `applied` exactly once; every other answer says `duplicate`.
    @Test func concurrentDeliveriesOfOneNotificationSayAppliedOnce() async throws {
        try await H.run { harness, _ in
            let ingestion = Ingestion(
                store: harness.store, catalog: harness.catalog,
                apple: try Self.gateway(harness, retry: StoredInputRetry()),
                logger: TestDatabase.logger,
                now: { harness.clock.now })
            for round in 0..<3 {
                let transaction = try harness.signedTransaction(id: "700\(round)", purchasedOnDay: 0, expiresOnDay: 30)
                let body = Data(
                    buffer: try harness.notificationBody(
                        type: "SUBSCRIBED", subtype: "INITIAL_BUY", transaction: transaction, onDay: 0))
                let results = try await withThrowingTaskGroup(of: Ingestion.NotificationResult.self) { group in
                    for _ in 0..<16 { group.addTask { try await ingestion.receiveNotification(body) } }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                #expect(results.filter { $0 != .duplicate }.count == 1)
                #expect(results.filter { $0 == .duplicate }.count == 15)
            }
        }
    }
}
