import LedgerTestSupport
import PostgresLibPQ
import SubLedgerCore
import SubLedgerReports
import SubLedgerTestSupport
import Testing

@testable import SubLedgerStore

/// The report projector keeps `chain_report_spans` through `chain_report_spans_refresh` (schema step 23) for the
/// chains `LedgerStore.apply` queued, which
/// compares a chain's spans computed afresh with the stored ones and writes only those that differ: the rows it
/// leaves are exactly what `chain_report_spans_of` computes, also when a late transaction changes an early span
/// (two spans merge, the later one goes), and spans that did not change keep their row version.
@Suite struct ReportSpansRefreshTests {
    private typealias F = LedgerFixtures
    private let alice = F.account("alice")

    private func withLedger(_ body: (LedgerStore, StoredApp, PostgresPool) async throws -> Void) async throws {
        try await TestDatabase.withSchema(template: .ledger) { _, _, pool in
            try await Migrator.bundled(logger: TestDatabase.logger).migrate(pool)
            let store = LedgerStore(pool: pool)
            try await body(store, try await F.app(on: store.pool), pool)
        }
    }

    /// The stored spans of production chain `chain` as text, in key order, and their row versions (`xmin`).
    private func stored(_ chain: String, app: StoredApp, on pool: PostgresPool) async throws -> [(
        row: String, version: String
    )] {
        try await pool.query(
            """
            SELECT s::text, s.xmin::text FROM chain_report_spans s
            WHERE s.app_id = \(app.appID) AND s.environment = 'Production' AND s.original_transaction_id = \(chain)
            ORDER BY s.kind, s.seq
            """
        ).map { (try $0.decode(String.self, at: 0), try $0.decode(String.self, at: 1)) }
    }

    /// What `chain_report_spans_of` computes for production chain `chain` now, as text, in key order.
    private func computed(_ chain: String, app: StoredApp, on pool: PostgresPool) async throws -> [String] {
        try await pool.query(
            "SELECT f::text FROM chain_report_spans_of(\(app.appID), 'Production', \(chain)) f ORDER BY f.kind, f.seq"
        ).map { try $0.decode(String.self, at: 0) }
    }

    /// How many in-force spans production chain `chain` has stored.
    private func inForceSpans(_ chain: String, app: StoredApp, on pool: PostgresPool) async throws -> Int64 {
        try await pool.query(
            """
            SELECT count(*)::bigint FROM chain_report_spans
            WHERE app_id = \(app.appID) AND environment = 'Production' AND original_transaction_id = \(chain) AND kind
                = 'in_force'
            """
        ).single().decode(Int64.self, at: 0)
    }

    @Test func aLateTransactionThatFillsAGapMergesTwoEarlierSpans() async throws {
        try await withLedger { store, app, pool in
            // Two months with a month's gap between them: two in-force spans.
            try await store.apply(
                F.receipt(
                    by: alice,
                    [
                        F.subscription("t1", chain: "o1", from: 0, to: 30),
                        F.subscription("t3", chain: "o1", from: 60, to: 90),
                    ],
                    renewals: [F.renewal(chain: "o1", willAutoRenew: true, on: 61)], on: 61),
                app: app, now: F.day(61))
            _ = try await ReportProjector(pool: pool).projectAll()
            #expect(
                try await stored("o1", app: app, on: pool).map(\.row) == (try await computed("o1", app: app, on: pool)))
            #expect(try await inForceSpans("o1", app: app, on: pool) == 2)

            // The month between arrives late: the first span now runs to day 90 and the second is gone.
            try await store.apply(
                F.notification([F.subscription("t2", chain: "o1", from: 30, to: 60)], on: 62), app: app, now: F.day(62))
            _ = try await ReportProjector(pool: pool).projectAll()
            #expect(
                try await stored("o1", app: app, on: pool).map(\.row) == (try await computed("o1", app: app, on: pool)))
            #expect(try await inForceSpans("o1", app: app, on: pool) == 1)

            // Refunded from day 45, the late month leaves a gap again.
            try await store.apply(
                F.notification([F.subscription("t2", chain: "o1", from: 30, to: 60, refundedOn: 45)], on: 63),
                app: app, now: F.day(63))
            _ = try await ReportProjector(pool: pool).projectAll()
            #expect(
                try await stored("o1", app: app, on: pool).map(\.row) == (try await computed("o1", app: app, on: pool)))
            #expect(try await inForceSpans("o1", app: app, on: pool) == 2)
        }
    }

    @Test func spansThatDidNotChangeAreNotWrittenAgain() async throws {
        try await withLedger { store, app, pool in
            try await store.apply(
                F.receipt(
                    by: alice, [F.subscription("t1", chain: "o1", from: 0, to: 30)],
                    renewals: [F.renewal(chain: "o1", willAutoRenew: true, on: 0)], on: 0),
                app: app, now: F.day(0))
            _ = try await ReportProjector(pool: pool).projectAll()
            let first = try await stored("o1", app: app, on: pool)
            #expect(!first.isEmpty)

            // Only the renewal preference changes: no span does, and none is written.
            let applied = try await store.apply(
                F.notification([], renewals: [F.renewal(chain: "o1", willAutoRenew: false, on: 10, intent: 1)], on: 10),
                app: app, now: F.day(10))
            _ = try await ReportProjector(pool: pool).projectAll()
            #expect(applied.decision.updatedChains.map(\.key.chainID) == ["o1"])
            let unchanged = try await stored("o1", app: app, on: pool)
            #expect(unchanged.map(\.row) == first.map(\.row))
            #expect(unchanged.map(\.version) == first.map(\.version))

            // A renewal moves the end of the granting and in-force spans; the recorded state (active) stays.
            try await store.apply(
                F.notification(
                    [F.subscription("t2", chain: "o1", from: 30, to: 60)],
                    renewals: [F.renewal(chain: "o1", willAutoRenew: true, on: 31)], on: 31),
                app: app, now: F.day(31))
            _ = try await ReportProjector(pool: pool).projectAll()
            let renewed = try await stored("o1", app: app, on: pool)
            #expect(renewed.map(\.row) == (try await computed("o1", app: app, on: pool)))
            #expect(renewed.map(\.row) != first.map(\.row))
            let recordedBefore = first.filter { $0.row.contains(",recorded,") }
            let recordedAfter = renewed.filter { $0.row.contains(",recorded,") }
            #expect(!recordedBefore.isEmpty)
            #expect(recordedAfter.map(\.version) == recordedBefore.map(\.version))
        }
    }
}
