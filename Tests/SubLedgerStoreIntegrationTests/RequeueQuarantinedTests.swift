import LedgerTestSupport
import PostgresLibPQ
import SubLedgerCore
import SubLedgerTestSupport
import Testing

@testable import SubLedgerStore

/// `subledger inputs requeue`: quarantined inputs go back in the queue, due at once; nothing else moves.
@Suite struct RequeueQuarantinedTests {
    typealias F = LedgerFixtures

    struct Stored {
        var receipts: [Int64]
        var notification: Int64
        var applied: Int64
    }

    /// Two quarantined receipts, a quarantined notification and an applied receipt of the fixture app.
    static func store(_ store: LedgerStore, _ app: StoredApp) async throws -> Stored {
        var receipts: [Int64] = []
        for body in ["receipt-one", "receipt-two", "receipt-applied"] {
            receipts.append(try await store.storeSubmission(kind: .appReceipt, body: body, account: nil, app: app))
        }
        try await store.pool.query(
            """
            UPDATE receipts SET status = 'quarantined', attempts = 16, last_error = 'Apple failed' WHERE receipt_id IN
                (\(receipts[0]), \(receipts[1]))
            """)
        try await store.pool.query("UPDATE receipts SET status = 'applied' WHERE receipt_id = \(receipts[2])")
        let notification = try await store.pool.query(
            """
            INSERT INTO notifications (app_id, notification_id, version, body, status, attempts, last_error)
            VALUES (\(app.appID), 'requeue-test', 'v2', '{}', 'quarantined', 16, 'could not apply')
            RETURNING notification_row_id
            """
        ).single().decode(Int64.self, at: 0)
        return Stored(receipts: [receipts[0], receipts[1]], notification: notification, applied: receipts[2])
    }

    static func state(_ store: LedgerStore, receipt id: Int64) async throws -> (String, Int32, Bool, String?) {
        let row = try await store.pool.query(
            """
            SELECT status, attempts, next_attempt_at <= \(timestamp(F.day(1)))::timestamptz, last_error FROM receipts
                WHERE receipt_id = \(id)
            """
        ).single()
        return (
            try row.decode(String.self, at: 0), try row.decode(Int32.self, at: 1),
            try row.decode(Bool?.self, at: 2) ?? false, try row.decode(String?.self, at: 3)
        )
    }

    @Test func oneQuarantinedReceiptIsPutBackDueAtOnce() async throws {
        try await TestDatabase.withSchema(template: .ledger) { _, _, pool in
            try await Migrator.bundled(logger: TestDatabase.logger).migrate(pool)
            let store = LedgerStore(pool: pool)
            let app = try await F.app(on: store.pool)
            let stored = try await Self.store(store, app)

            let listed = try await store.requeueQuarantined(
                .input(.submission, id: stored.receipts[0]), dryRun: true, actor: "test", now: F.day(1))
            #expect(listed == [.init(kind: .submission, id: stored.receipts[0], lastError: "Apple failed")])
            #expect(try await Self.state(store, receipt: stored.receipts[0]).0 == "quarantined")

            let requeued = try await store.requeueQuarantined(
                .input(.submission, id: stored.receipts[0]), dryRun: false, actor: "test", now: F.day(1))
            #expect(requeued == listed)
            let (status, attempts, due, lastError) = try await Self.state(store, receipt: stored.receipts[0])
            #expect(status == "retry")
            #expect(attempts == 0)
            #expect(due)
            #expect(lastError?.hasPrefix("re-queued from quarantine at ") == true)
            #expect(lastError?.hasSuffix("quarantined with: Apple failed") == true)
            #expect(try await Self.state(store, receipt: stored.receipts[1]).0 == "quarantined")

            // Again: it is no longer quarantined, so nothing moves; neither does an applied receipt.
            #expect(
                try await store.requeueQuarantined(
                    .input(.submission, id: stored.receipts[0]), dryRun: false, actor: "test", now: F.day(1)
                ).isEmpty)
            #expect(
                try await store.requeueQuarantined(
                    .input(.submission, id: stored.applied), dryRun: false, actor: "test", now: F.day(1)
                )
                .isEmpty)
            #expect(try await Self.state(store, receipt: stored.applied).0 == "applied")
        }
    }

    @Test func everyQuarantinedInputOfAnAppIsPutBack() async throws {
        try await TestDatabase.withSchema(template: .ledger) { _, _, pool in
            try await Migrator.bundled(logger: TestDatabase.logger).migrate(pool)
            let store = LedgerStore(pool: pool)
            let app = try await F.app(on: store.pool)
            let stored = try await Self.store(store, app)

            let expected: [LedgerStore.RequeuedInput] = [
                .init(kind: .notification, id: stored.notification, lastError: "could not apply"),
                .init(kind: .submission, id: stored.receipts[0], lastError: "Apple failed"),
                .init(kind: .submission, id: stored.receipts[1], lastError: "Apple failed"),
            ]
            #expect(
                try await store.requeueQuarantined(.app(appID: app.appID), dryRun: true, actor: "test", now: F.day(1))
                    == expected)
            #expect(
                try await store.requeueQuarantined(.app(appID: app.appID), dryRun: false, actor: "test", now: F.day(1))
                    == expected)
            let statuses = try await pool.query(
                "SELECT status FROM notifications WHERE notification_row_id = \(stored.notification)"
            ).single().decode(String.self, at: 0)
            #expect(statuses == "retry")
            #expect(try await Self.state(store, receipt: stored.receipts[1]).0 == "retry")
            #expect(
                try await store.requeueQuarantined(.app(appID: app.appID), dryRun: false, actor: "test", now: F.day(1))
                    .isEmpty)
        }
    }

    /// Each re-queue is a row of the input's history, with who asked and the state it left; a dry run records
    /// nothing, and the history cannot be rewritten.
    @Test func eachRequeueIsRecordedInTheInputsHistory() async throws {
        try await TestDatabase.withSchema(template: .ledger) { _, _, pool in
            try await Migrator.bundled(logger: TestDatabase.logger).migrate(pool)
            let store = LedgerStore(pool: pool)
            let app = try await F.app(on: store.pool)
            let stored = try await Self.store(store, app)
            let receipt = stored.receipts[0]
            #expect(try await store.inputHistory(.submission, id: receipt)?.events == [])

            _ = try await store.requeueQuarantined(
                .input(.submission, id: receipt), dryRun: true, actor: "ops", now: F.day(1))
            #expect(try await store.inputHistory(.submission, id: receipt)?.events == [])

            _ = try await store.requeueQuarantined(
                .input(.submission, id: receipt), dryRun: false, actor: "subledger inputs requeue (ops on host)",
                now: F.day(1))
            // Quarantined again by later attempts, then re-queued with the whole app.
            try await pool.query(
                """
                UPDATE receipts SET status = 'quarantined', attempts = 16, last_error = 'Apple failed again' WHERE
                    receipt_id = \(receipt)
                """)
            _ = try await store.requeueQuarantined(.app(appID: app.appID), dryRun: false, actor: "admin", now: F.day(2))

            let history = try #require(try await store.inputHistory(.submission, id: receipt))
            #expect(history.status == "retry")
            #expect(history.attempts == 0)
            #expect(
                history.events == [
                    .init(
                        event: "requeued", occurredAt: F.day(1), actor: "subledger inputs requeue (ops on host)",
                        previousStatus: "quarantined", previousAttempts: 16, previousError: "Apple failed"),
                    .init(
                        event: "requeued", occurredAt: F.day(2), actor: "admin", previousStatus: "quarantined",
                        previousAttempts: 16, previousError: "Apple failed again"),
                ])
            // The notification and the other receipt were re-queued once, with the app; the applied receipt never.
            let notification = try #require(try await store.inputHistory(.notification, id: stored.notification))
            #expect(notification.events.map(\.actor) == ["admin"])
            #expect(notification.events.first?.previousError == "could not apply")
            #expect(try await store.inputHistory(.submission, id: stored.receipts[1])?.events.count == 1)
            #expect(try await store.inputHistory(.submission, id: stored.applied)?.events == [])
            #expect(try await store.inputHistory(.submission, id: 999_999) == nil)

            await #expect(throws: PostgresError.self) {
                _ = try await pool.query("UPDATE input_events SET actor = 'someone else'")
            }
            await #expect(throws: PostgresError.self) {
                _ = try await pool.query("DELETE FROM input_events")
            }
        }
    }
}
