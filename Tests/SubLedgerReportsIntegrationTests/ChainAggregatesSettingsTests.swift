import LedgerTestSupport
import PostgresLibPQ
import SubLedgerCore
import SubLedgerStore
import SubLedgerTestSupport
import Testing

@testable import SubLedgerReports

/// The aggregate refreshes run on generic plans and without JIT, and only in the projection's transaction: on a large
/// ledger the money refresh's generic plan is costed above `jit_above_cost`, and compiling it took about a second
/// per apply.
@Suite struct ChainAggregatesSettingsTests {
    @Test func theRefreshesTurnJITOffAndForceGenericPlansForTheirTransactionOnly() async throws {
        try await TestDatabase.withSchema(template: .ledger) { _, _, pool in
            try await Migrator.bundled(logger: TestDatabase.logger).migrate(pool)
            let store = LedgerStore(pool: pool)
            let app = try await LedgerFixtures.app(on: store.pool)
            let settings: PostgresQuery = "SELECT current_setting('jit'), current_setting('plan_cache_mode')"
            let (before, inside, after) = try await pool.withConnection { connection in
                let before = try connection.query(settings).single()
                let inside = try connection.transaction { connection in
                    try ChainAggregates.refresh(
                        [ChainKey(environment: .production, chainID: "o1")], appID: app.appID,
                        on: connection)
                    return try connection.query(settings).single()
                }
                let after = try connection.query(settings).single()
                return (
                    [try before.decode(String.self, at: 0), try before.decode(String.self, at: 1)],
                    [try inside.decode(String.self, at: 0), try inside.decode(String.self, at: 1)],
                    [try after.decode(String.self, at: 0), try after.decode(String.self, at: 1)]
                )
            }
            #expect(inside == ["off", "force_generic_plan"])
            #expect(after == before)
        }
    }
}
