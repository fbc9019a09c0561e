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
            // A recompute in progress: the exclusive lock, held for a second.
            let holder = Mutex<Int32?>(nil)
            let recompute = Task {
                try await pool.transaction { connection in
                    holder.withLock { $0 = connection.backendPID }
                    try connection.query(ChainAggregates.recomputeLockStatement, [app.appID])
                    Thread.sleep(forTimeInterval: 1)
                    return clock.now
                }
            }
            // The lock granted to this holder. Advisory locks are the whole database's, and other suites' apps (in
            // their own schemas) can have the same app id, so their catalog applies take the same key: only the
            // holder's own backend shows that the recompute here is under way.
            try await waitUntil {
                guard let pid = holder.withLock({ $0 }) else { return false }
                return try await pool.query(
                    """
                    WITH k AS (SELECT hashtextextended('aggregates/' || $1::bigint::text, 0) AS key)
                    SELECT count(*)::bigint FROM pg_locks l, k
                    WHERE l.pid = $2 AND l.locktype = 'advisory' AND l.mode = 'ExclusiveLock' AND l.granted
                      AND l.objsubid = 1
                      AND l.classid::bigint = (k.key >> 32) & 4294967295 AND l.objid::bigint = k.key & 4294967295
                    """, [app.appID, pid]
                ).single().decode(Int64.self, at: 0) == 1
            }
            try await store.apply(
                F.receipt(by: alice, [F.subscription("t1", chain: "o1", from: 0, to: 30)], on: 1), app: app,
                now: F.day(1))
            let applied = clock.now
            let recomputeEnded = try await recompute.value
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
        let deadline = ContinuousClock.now + .seconds(30)
        while try await !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("the condition did not hold within 30 s")
                return
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
