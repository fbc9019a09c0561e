import LedgerTestSupport
import PostgresLibPQ
import SubLedgerCore
import SubLedgerReports
import SubLedgerTestSupport
import Testing

@testable import SubLedgerStore

/// The report projector keeps `chain_cohort_facts` through `chain_cohort_facts_refresh` (schema step 18) for the
/// chains `LedgerStore.apply` queued: the rows it leaves are exactly what `chain_cohort_facts_of` computes from the ledger, a row whose facts did not change is not
/// written again, and a chain with neither a payment nor an offer has no row.
@Suite struct CohortFactsRefreshTests {
    private typealias F = LedgerFixtures
    private let alice = F.account("alice")

    private func withLedger(_ body: (LedgerStore, StoredApp, PostgresPool) async throws -> Void) async throws {
        try await TestDatabase.withSchema(template: .ledger) { _, _, pool in
            try await Migrator.bundled(logger: TestDatabase.logger).migrate(pool)
            let store = LedgerStore(pool: pool)
            try await body(store, try await F.app(on: store.pool), pool)
        }
    }

    /// The stored row of production chain `chain` as text, and its row version (`xmin`); nil when it has none.
    private func stored(_ chain: String, app: StoredApp, on pool: PostgresPool) async throws -> (
        row: String, version: String
    )? {
        try await pool.query(
            """
            SELECT f::text, f.xmin::text FROM chain_cohort_facts f
            WHERE f.app_id = \(app.appID) AND f.environment = 'Production' AND f.original_transaction_id = \(chain)
            """
        ).first.map { (try $0.decode(String.self, at: 0), try $0.decode(String.self, at: 1)) }
    }

    /// What `chain_cohort_facts_of` computes for production chain `chain` now, as text.
    private func computed(_ chain: String, app: StoredApp, on pool: PostgresPool) async throws -> String {
        try await pool.query(
            "SELECT f::text FROM chain_cohort_facts_of(\(app.appID), 'Production', \(chain)) f"
        ).single().decode(String.self, at: 0)
    }

    @Test func anApplyLeavesWhatTheLedgerGivesAndRewritesOnlyChangedFacts() async throws {
        try await withLedger { store, app, pool in
            let purchase = F.subscription("t1", chain: "o1", from: 0, to: 30)
            try await store.apply(
                F.receipt(by: alice, [purchase], renewals: [F.renewal(chain: "o1", willAutoRenew: true, on: 0)], on: 0),
                app: app, now: F.day(0))
            _ = try await ReportProjector(pool: pool).projectAll()
            let first = try #require(try await stored("o1", app: app, on: pool))
            #expect(first.row == (try await computed("o1", app: app, on: pool)))

            // Only the renewal preference changes: the chain is written, its cohort facts are not.
            let chainVersion: PostgresQuery =
                "SELECT xmin::text FROM chains WHERE app_id = \(app.appID) AND original_transaction_id = 'o1'"
            let chainBefore = try await pool.query(chainVersion).single().decode(String.self, at: 0)
            let applied = try await store.apply(
                F.notification([], renewals: [F.renewal(chain: "o1", willAutoRenew: false, on: 10, intent: 1)], on: 10),
                app: app, now: F.day(10))
            _ = try await ReportProjector(pool: pool).projectAll()
            #expect(applied.decision.updatedChains.map(\.key.chainID) == ["o1"])
            #expect(try await pool.query(chainVersion).single().decode(String.self, at: 0) != chainBefore)
            let unchanged = try #require(try await stored("o1", app: app, on: pool))
            #expect(unchanged.row == first.row)
            #expect(unchanged.version == first.version)

            // A renewal pays for another month: the row is rewritten with it.
            let renewal = F.subscription("t2", chain: "o1", from: 30, to: 60)
            try await store.apply(
                F.notification([renewal], renewals: [F.renewal(chain: "o1", willAutoRenew: true, on: 31)], on: 31),
                app: app, now: F.day(31))
            _ = try await ReportProjector(pool: pool).projectAll()
            let renewed = try #require(try await stored("o1", app: app, on: pool))
            #expect(renewed.row != first.row)
            #expect(renewed.row == (try await computed("o1", app: app, on: pool)))
        }
    }

    @Test func aChainWithNeitherAPaymentNorAnOfferHasNoRow() async throws {
        try await withLedger { store, app, pool in
            // A stale row for a chain whose product is not auto-renewable (no payment counts, no offer).
            try await pool.query(
                """
                INSERT INTO chain_cohort_facts (app_id, environment, original_transaction_id, first_paid_at, paid_mask,
                    money_months, money_currencies, money_days, money_gross, money_refunded, money_estimated,
                    money_unpriced, money_priced)
                VALUES (\(app.appID), 'Production', 'l1', now(), 1, '{0}', '{USD}', '{2026-01-01}', '{990}', '{0}',
                    '{0}', '{0}', '{1}')
                """)
            let lifetime = Transaction(
                transactionID: "l1", chainID: "l1", productID: "lifetime", bundleID: F.bundleID,
                purchaseDate: F.day(0), environment: .production, source: .verifyReceipt)
            try await store.apply(F.receipt(by: alice, [lifetime], on: 0), app: app, now: F.day(0))
            _ = try await ReportProjector(pool: pool).projectAll()
            #expect(try await stored("l1", app: app, on: pool) == nil)
        }
    }
}
