import Foundation
import LedgerTestSupport
import PostgresLibPQ
import SubLedgerCore
import SubLedgerReports
import SubLedgerTestSupport
import Synchronization
import Testing

@testable import SubLedgerStore

/// The report projection queue (schema step 32): an apply records the chains it changed in its transaction and
/// writes no aggregate; `catalog apply` queues every chain of the app without holding applies off; a projection
/// takes the same chain lock as the apply (`ChainRows.lock`), so it never refreshes a chain an apply is writing.
@Suite struct ReportProjectionQueueTests {
    private typealias F = LedgerFixtures
    private let alice = F.account("alice")

    private func withLedger(_ body: (LedgerStore, StoredApp, PostgresPool) async throws -> Void) async throws {
        try await TestDatabase.withSchema(template: .ledger) { _, _, pool in
            try await Migrator.bundled(logger: TestDatabase.logger).migrate(pool)
            let store = LedgerStore(pool: pool)
            try await body(store, try await F.app(on: store.pool), pool)
        }
    }

    /// The queued changes, oldest first, as `chain@milliseconds`.
    private func queue(_ pool: PostgresPool) async throws -> [String] {
        try await pool.query(
            """
            SELECT original_transaction_id || '@' || (extract(epoch FROM changed_at) * 1000)::bigint
            FROM report_projection_queue ORDER BY change_id
            """
        ).map { try $0.decode(String.self, at: 0) }
    }

    private func count(_ table: PostgresQuery, _ pool: PostgresPool) async throws -> Int64 {
        try await pool.query("SELECT count(*)::bigint FROM \(table)").single().decode(Int64.self, at: 0)
    }

    @Test func anApplyQueuesItsChangedChainsAndWritesNoAggregate() async throws {
        try await withLedger { store, app, pool in
            let receipt = F.receipt(
                by: alice,
                [
                    F.subscription("t1", chain: "o1", from: 0, to: 30),
                    F.subscription("t2", chain: "o2", from: 0, to: 30),
                ],
                on: 1)
            try await store.apply(receipt, app: app, now: F.day(1))
            let at = F.day(1).millisecondsSince1970
            #expect(try await queue(pool) == ["o1@\(at)", "o2@\(at)"])
            #expect(try await count("chain_report_spans", pool) == 0)
            #expect(try await count("chain_cohort_facts", pool) == 0)

            let progress = try await ReportProjector(pool: pool).projectAll()
            #expect(progress.changes == 2 && progress.chains == 2)
            #expect(try await queue(pool).isEmpty)
            #expect(try await count("chain_report_spans", pool) > 0)
        }
    }

    /// `catalog apply` queues every chain of the app in its transaction; an apply started while that transaction is
    /// open neither waits for it nor is lost.
    @Test func aCatalogChangeQueuesEveryChainWithoutHoldingAppliesOff() async throws {
        try await withLedger { store, app, pool in
            for chain in ["o1", "o2", "o3"] {
                try await store.apply(
                    F.receipt(by: alice, [F.subscription("t-\(chain)", chain: chain, from: 0, to: 30)], on: 1),
                    app: app, now: F.day(1))
            }
            _ = try await ReportProjector(pool: pool).projectAll()
            let release = Mutex(false)
            let queued = Mutex(false)
            let catalog = Task {
                try await pool.transaction { connection in
                    try connection.query(ReportProjectionQueueRows.enqueueApp(app.appID))
                    queued.withLock { $0 = true }
                    while !release.withLock({ $0 }) { Thread.sleep(forTimeInterval: 0.01) }
                }
            }
            while !queued.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(10)) }
            // The catalog's transaction is open: an apply to one of its chains ends regardless.
            try await store.apply(
                F.receipt(by: alice, [F.subscription("t-o2", chain: "o2", from: 0, to: 30, refundedOn: 5)], on: 6),
                app: app, now: F.day(6))
            release.withLock { $0 = true }
            try await catalog.value
            let chains = try await queue(pool).map { $0.split(separator: "@")[0] }
            #expect(chains.sorted() == ["o1", "o2", "o2", "o3"])
            let progress = try await ReportProjector(pool: pool).projectAll()
            #expect(progress.changes == 4 && progress.chains == 3)
        }
    }

    /// A projection waits for an apply that holds the chain's lock (the key agrees with `ChainRows.lock`), and
    /// refreshes the chain as that apply left it.
    @Test func aProjectionWaitsForTheApplyHoldingTheChain() async throws {
        try await withLedger { store, app, pool in
            try await store.apply(
                F.receipt(by: alice, [F.subscription("t1", chain: "o1", from: 0, to: 30)], on: 1), app: app,
                now: F.day(1))
            let release = Mutex(false)
            let locked = Mutex<Int32?>(nil)
            let apply = Task {
                try await pool.transaction { connection in
                    try ChainRows.lock(
                        [ChainKey(environment: .production, chainID: "o1")], appID: app.appID,
                        on: connection)
                    locked.withLock { $0 = connection.backendPID }
                    while !release.withLock({ $0 }) { Thread.sleep(forTimeInterval: 0.01) }
                }
            }
            while locked.withLock({ $0 }) == nil { try await Task.sleep(for: .milliseconds(10)) }
            let projection = Task { try await ReportProjector(pool: pool).projectAll() }
            // The projection is seen waiting on an advisory lock, in this test's database, before the apply ends. The
            // poll is sent as every `pool.query` is (from this task, its reply awaited on a readiness thread) while one
            // of the pool's connections is held by the apply's transaction and another waits for the chain's lock.
            let deadline = ContinuousClock.now + .seconds(120)
            var waiting: Int64 = 0
            while waiting == 0 && ContinuousClock.now < deadline {
                waiting = try await pool.query(
                    """
                    SELECT count(*)::bigint FROM pg_locks l
                    WHERE l.locktype = 'advisory' AND NOT l.granted
                      AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
                    """
                ).single().decode(Int64.self, at: 0)
                if waiting == 0 { try await Task.sleep(for: .milliseconds(20)) }
            }
            #expect(waiting == 1, "the projection did not wait for the chain's lock")
            #expect(try await count("chain_report_spans", pool) == 0)
            release.withLock { $0 = true }
            try await apply.value
            #expect(try await projection.value.chains == 1)
            #expect(try await count("chain_report_spans", pool) > 0)
        }
    }
}
