import Foundation
import LedgerTestSupport
import PostgresLibPQ
import SubLedgerCore
import SubLedgerTestSupport
import Synchronization
import Testing

@testable import SubLedgerStore

/// `catalog apply` recomputes every chain's aggregates of the app in its transaction; an apply refreshes its own
/// chains' rows in its transaction. The two take the app's aggregate lock (exclusive for the recompute, shared for
/// the apply), so an apply cannot refresh under the old catalog and commit in the middle of a recompute whose
/// snapshot misses it, leaving its chains' facts stale.
@Suite struct CatalogRecomputeLockTests {
    private typealias F = LedgerFixtures
    private let alice = F.account("alice")

    @Test func anApplyRefreshesOnlyAfterARunningRecomputeCommits() async throws {
        try await TestDatabase.withSchema(template: .ledger) { _, _, pool in
            try await Migrator.bundled(logger: TestDatabase.logger).migrate(pool)
            let store = LedgerStore(pool: pool, logger: TestDatabase.logger, secretKeys: F.secretKeys)
            let app = try await F.app(store)
            let clock = ContinuousClock()
            // A recompute in progress: the exclusive lock, held until this test lets it go.
            let holder = Mutex<Int32?>(nil)
            let release = Mutex(false)
            let recompute = Task {
                try await pool.transaction { connection in
                    try connection.query(ChainAggregates.recomputeLockStatement, [app.appID])
                    holder.withLock { $0 = connection.backendPID }
                    while !release.withLock({ $0 }) { Thread.sleep(forTimeInterval: 0.01) }
                    return clock.now
                }
            }
            try await waitUntil { holder.withLock { $0 } != nil }
            // The apply, started while the recompute holds the lock, must wait for it: it is seen waiting on the
            // app's aggregate lock (in this test's own database) before the recompute is let go.
            let applyEnded = Mutex(false)
            let apply = Task {
                try await store.apply(
                    F.receipt(by: alice, [F.subscription("t1", chain: "o1", from: 0, to: 30)], on: 1), app: app,
                    now: F.day(1))
                applyEnded.withLock { $0 = true }
                return clock.now
            }
            try await waitUntil {
                if applyEnded.withLock({ $0 }) { return true }
                return try await pool.query(
                    """
                    WITH k AS (SELECT hashtextextended('aggregates/' || $1::bigint::text, 0) AS key)
                    SELECT count(*)::bigint FROM pg_locks l, k
                    WHERE l.locktype = 'advisory' AND NOT l.granted AND l.objsubid = 1
                      AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
                      AND l.classid::bigint = (k.key >> 32) & 4294967295 AND l.objid::bigint = k.key & 4294967295
                    """, [app.appID]
                ).single().decode(Int64.self, at: 0) >= 1
            }
            #expect(!applyEnded.withLock { $0 }, "the apply finished while the recompute held the app's lock")
            release.withLock { $0 = true }
            let recomputeEnded = try await recompute.value
            let applied = try await apply.value
            #expect(applied > recomputeEnded)
            // The apply's refresh ran: its chain has its report spans.
            let spans = try await pool.query(
                "SELECT count(*)::bigint FROM chain_report_spans WHERE app_id = $1 AND original_transaction_id = 'o1'",
                [app.appID]
            ).single().decode(Int64.self, at: 0)
            #expect(spans > 0)
        }
    }

    private func waitUntil(_ condition: () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(120)
        while try await !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("the condition did not hold within 120 s")
                return
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
