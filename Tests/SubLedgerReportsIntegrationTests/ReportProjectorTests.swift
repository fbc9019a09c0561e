import Foundation
import PostgresLibPQ
import SeededRandom
import SubLedgerCore
import SubLedgerStore
import Synchronization
import Testing

@testable import SubLedgerReports

/// The report projector (schema step 32) keeps the aggregates from the queue the applies write: a projector that
/// dies in the middle of a batch loses no change and counts none twice, and a change recorded while a batch runs
/// stays queued after the batch commits.
@Suite struct ReportProjectorTests {
    /// The changes of one random cohort history (`CohortFactsAgreementTests`: 40 chains of payments, refunds and
    /// upgrades) are applied; one batch is projected and committed; the next batch refreshes its chains and deletes
    /// its queue rows, and then its connection is terminated before COMMIT. Its rows are still queued, the
    /// aggregates are those of the first batch alone, and once another projector has caught up every aggregate
    /// agrees with the ledger: the totals with the facts, each entry counted once, `retention` with the ledger,
    /// and projecting every chain again changes nothing.
    @Test func aProjectorKilledMidBatchLosesNothingAndCountsNothingTwice() async throws {
        var rng = SplitMix64(seed: CohortFactsAgreementTests.seed)
        let inputs = try CohortFactsAgreementTests.randomInputs(history: 0, using: &rng)
        try await ReportsDatabase.withMigratedSchema { pool in
            let (store, app) = try await CohortFactsAgreementTests.setUp(pool)
            for (moment, input) in inputs {
                try await store.apply(input, app: app, reference: .none, now: moment)
            }
            let queued = try await Self.queued(pool)
            #expect(queued > 40, "too few changes queued (\(queued))")

            let first = try await ReportProjector(pool: pool, batchSize: 10).projectBatch()
            #expect(first.changes == 10)
            let afterFirst = try await MoneyFactsAgreementTests.aggregates(pool)
            let countedAfterFirst = try await Self.countedEntries(pool)

            let dying = await #expect(throws: PostgresError.self) {
                try await pool.withConnection { connection in
                    try connection.execute(script: "BEGIN")
                    let progress = try ReportProjector.projectBatch(limit: 25, on: connection)
                    precondition(progress.changes == 25)
                    // Every claimed chain is refreshed and its rows deleted, uncommitted: the projector dies here.
                    try connection.query("SELECT pg_terminate_backend(pg_backend_pid())")
                    try connection.execute(script: "COMMIT")
                }
            }
            #expect(dying != nil)
            #expect(try await Self.queued(pool) == queued - 10, "the killed batch's changes were lost")
            #expect(try await MoneyFactsAgreementTests.aggregates(pool) == afterFirst)
            #expect(try await Self.countedEntries(pool) == countedAfterFirst)

            let rest = try await ReportProjector(pool: pool, batchSize: 7).projectAll()
            #expect(rest.changes == queued - 10)
            #expect(try await Self.queued(pool) == 0)
            let counted = try await Self.countedEntries(pool)
            #expect(
                counted.daily == counted.ledger,
                "entries counted \(counted.daily) times, the ledger holds \(counted.ledger)")
            #expect(counted.ledger > 0)
            #expect(try await MoneyFactsAgreementTests.totalsDisagreements(pool) == [])
            #expect(
                try await CohortFactsAgreementTests.totalsDisagreements(pool, history: 0, when: "after the kill") == [])
            let retention = try await pool.withConnection { connection in
                try CohortFactsAgreementTests.compareRetention(on: connection, history: 0)
            }
            #expect(retention.compared > 0)
            #expect(retention.disagreements.isEmpty, "\(retention.disagreements.prefix(1))")

            let projected = try await MoneyFactsAgreementTests.aggregates(pool)
            let spans = try await Self.spans(pool)
            try await store.requeueReportAggregates(app: app)
            _ = try await ReportProjector(pool: pool).projectAll()
            #expect(try await MoneyFactsAgreementTests.aggregates(pool) == projected)
            #expect(try await Self.spans(pool) == spans)
            #expect(try await Self.countedEntries(pool) == counted)
        }
    }

    /// A batch holds its chains' locks until it commits: an apply to one of its chains waits and records its change
    /// after the batch read the chain; the batch deletes only the rows it claimed, so that change stays queued and
    /// the next batch projects it. An apply to a chain outside the batch does not wait for it.
    @Test func aChangeRecordedDuringABatchStaysQueued() async throws {
        try await ReportsDatabase.withMigratedSchema { pool in
            try await ReportFixtures.load(pool)
            let store = LedgerStore(pool: pool)
            let catalogStore = CatalogStore(pool: pool)
            let app = try #require(try await catalogStore.app(bundleID: ReportFixtures.bundleID))
            let renewal = ReportFixtures.receipt(
                by: nil,
                [ReportFixtures.subscription("c6-2", chain: "c6", product: "premium.monthly", from: 68, to: 98)],
                on: 69)
            // c6's renewal preference changes: it is queued again, and a batch claims it and holds it, uncommitted.
            try await store.apply(
                ReportFixtures.receipt(
                    by: "gina",
                    [ReportFixtures.subscription("c6", chain: "c6", product: "premium.monthly", from: 38, to: 68)],
                    renewals: [
                        ReportFixtures.renewal(chain: "c6", product: "premium.monthly", willAutoRenew: false, on: 40)
                    ], on: 40), app: app, now: ReportFixtures.day(40))
            let holding = Holding()
            let batch = Task {
                try await pool.transaction { connection in
                    let progress = try ReportProjector.projectBatch(limit: 10, on: connection)
                    holding.hold()
                    holding.waitForRelease()
                    return progress
                }
            }
            await holding.untilHeld()
            // Another chain is applied meanwhile, without waiting for the batch (if it waited, it would not end
            // before the batch is let go); c6's renewal waits for the batch.
            let other = Task {
                try await store.apply(
                    ReportFixtures.receipt(
                        by: "henry", [ReportFixtures.subscription("c7", chain: "c7", from: 39, to: 69)], on: 40),
                    app: app, now: ReportFixtures.day(40))
            }
            let otherEnded = await Self.ends(other, within: .seconds(120))
            #expect(otherEnded, "an apply to a chain outside the batch waited for it")
            let renewing = Task { try await store.apply(renewal, app: app, now: ReportFixtures.day(69)) }
            try await Task.sleep(for: .milliseconds(200))
            holding.release()
            _ = try await other.value
            #expect(try await batch.value.changes == 1)
            _ = try await renewing.value
            // The renewal's change and the other chain's: both queued after the batch committed.
            let chains = try await pool.query(
                "SELECT original_transaction_id FROM report_projection_queue ORDER BY change_id"
            ).map { try $0.decode(String.self, at: 0) }
            #expect(chains == ["c7", "c6"])
            _ = try await ReportProjector(pool: pool).projectAll()
            // c6's spans are those of its state after the renewal.
            let spans: PostgresQuery = """
                SELECT s::text FROM chain_report_spans s WHERE s.app_id = \(app.appID) AND s.original_transaction_id = 'c6'
                ORDER BY s.kind, s.seq
                """
            let computed: PostgresQuery =
                "SELECT f::text FROM chain_report_spans_of(\(app.appID), 'Production', 'c6') f ORDER BY f.kind, f.seq"
            let stored = try await pool.query(spans).map { try $0.decode(String.self, at: 0) }
            #expect(!stored.isEmpty)
            #expect(stored == (try await pool.query(computed).map { try $0.decode(String.self, at: 0) }))
        }
    }

    /// Whether `task` ends within `limit` (polled; the task is left running when it does not).
    static func ends(_ task: Task<LedgerStore.Applied, any Error>, within limit: Duration) async -> Bool {
        let ended = Holding()
        Task {
            _ = try? await task.value
            ended.hold()
        }
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if ended.isHeld { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    /// Changes queued now.
    static func queued(_ pool: PostgresPool) async throws -> Int64 {
        try await pool.query("SELECT count(*)::bigint FROM report_projection_queue").single().decode(Int64.self, at: 0)
    }

    /// The entries `ledger_entry_day_counts` counts, and those of the ledger it should count (grants, extensions,
    /// refunds) among the chains projected so far (`chain_entries_counted`).
    static func countedEntries(_ pool: PostgresPool) async throws -> Counted {
        let row = try await pool.query(
            """
            SELECT (SELECT coalesce(sum(entries), 0)::bigint FROM ledger_entry_day_counts),
                   (SELECT count(*)::bigint FROM ledger_entries e
                    JOIN chain_entries_counted w ON w.app_id = e.app_id AND w.environment = e.environment
                        AND w.original_transaction_id = e.original_transaction_id AND e.entry_id <= w.counted_through
                    WHERE e.kind IN ('grant', 'extend') OR (e.kind = 'revoke' AND e.reason = 'refund'))
            """
        ).single()
        return Counted(daily: try row.decode(Int64.self, at: 0), ledger: try row.decode(Int64.self, at: 1))
    }

    struct Counted: Equatable {
        var daily: Int64
        var ledger: Int64
    }

    /// Every report span, as text in key order.
    static func spans(_ pool: PostgresPool) async throws -> [String] {
        try await pool.query(
            "SELECT s::text FROM (SELECT * FROM chain_report_spans ORDER BY app_id, environment, original_transaction_id, kind, seq) s"
        ).map { try $0.decode(String.self, at: 0) }
            // Sorted here: Citus keeps no subquery's order across the workers' rows.
            .sorted()
    }
}

/// A batch held open on its connection's thread until the test lets it go (both sides poll, as
/// `ReportProjectionQueueTests` does).
private final class Holding: Sendable {
    private let held = Mutex(false)
    private let released = Mutex(false)

    var isHeld: Bool { held.withLock { $0 } }

    func hold() { held.withLock { $0 = true } }

    func release() { released.withLock { $0 = true } }

    func waitForRelease() {
        while !released.withLock({ $0 }) { Thread.sleep(forTimeInterval: 0.01) }
    }

    func untilHeld() async {
        while !isHeld { try? await Task.sleep(for: .milliseconds(10)) }
    }
}
