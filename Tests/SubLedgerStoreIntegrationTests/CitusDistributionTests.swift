import LedgerTestSupport
import PostgresLibPQ
import SubLedgerCore
import SubLedgerStore
import SubLedgerTestSupport
import Testing

/// `subledger migrate --distribute` (`CitusDistribution`): refused on a plain PostgreSQL; on the Citus cluster of
/// `scripts/citus-test`, a filled ledger is distributed as the tables' comments say, nothing is lost on the way, the
/// ledger still verifies, and a second run changes nothing.
@Suite struct CitusDistributionTests {
    private typealias F = LedgerFixtures

    @Test(.enabled(if: !TestDatabase.isCitus, "the plain PostgreSQL of scripts/test"))
    func aPlainPostgreSQLIsRefusedWithWhatToDo() async throws {
        try await TestDatabase.withSchema(template: .ledger) { _, _, pool in
            let refusal = try await #require(throws: CitusDistribution.Refusal.self) {
                _ = try await CitusDistribution.distribute(pool)
            }
            #expect(refusal.message.contains("the citus extension is not installed"))
            #expect(refusal.hint?.contains("citus_add_node") == true)
            #expect(try await CitusDistribution.placements(pool).isEmpty)
        }
    }

    @Test(.enabled(if: !TestDatabase.isCitus, "the plain PostgreSQL of scripts/test"))
    func aShardCountOutOfRangeIsRefused() async throws {
        try await TestDatabase.withSchema(template: .ledger) { _, _, pool in
            await #expect(throws: CitusDistribution.Refusal.self) {
                _ = try await CitusDistribution.distribute(pool, shardCount: 0)
            }
        }
    }

    @Test(.enabled(if: TestDatabase.isCitus, "runs on the Citus cluster of scripts/citus-test"))
    func aFilledLedgerIsDistributedAsItsCommentsSayAndLosesNothing() async throws {
        // A database on every node, migrated but not distributed: the ledger is filled as a single server would.
        try await TestDatabase.withSchema(distributed: true) { _, _, pool in
            try await Migrator.bundled(logger: TestDatabase.logger).migrate(pool)
            let store = LedgerStore(pool: pool)
            let app = try await F.app(on: pool)
            try await FilledLedger.fill(store, app)
            let counts: PostgresQuery = """
                SELECT (SELECT count(*) FROM ledger_entries) || '/' || (SELECT count(*) FROM transactions) || '/'
                    || (SELECT count(*) FROM chains) || '/' || (SELECT count(*) FROM ledger_chain_links) || '/'
                    || (SELECT count(*) FROM receipts) || '/' || (SELECT count(*) FROM notifications)
                """
            let before = try await pool.query(counts).single().decode(String.self, at: 0)
            #expect(try await CitusDistribution.placements(pool).isEmpty)

            let placements = try await CitusDistribution.distribute(pool, shardCount: 4)
            func placement(_ table: String) -> CitusDistribution.Placement? { placements.first { $0.table == table } }
            for table in ["chains", "transactions", "ownership_bindings", "ledger_entries", "ledger_chain_links"] {
                #expect(placement(table)?.kind == "distributed", "\(table)")
                #expect(placement(table)?.column == "original_transaction_id", "\(table)")
            }
            // One colocation group per key: a chain's rows of every table are on one worker.
            #expect(Set(placements.filter { $0.column == "original_transaction_id" }.map(\.colocationGroup)).count == 1)
            #expect(placement("accounts")?.column == "account_id")
            #expect(placement("apps")?.kind == "reference")
            #expect(placement("receipts")?.kind == "local")
            let shards = try await pool.query(
                "SELECT count(DISTINCT nodename || ':' || nodeport) FROM citus_shards WHERE table_name = 'chains'::regclass"
            ).single().decode(Int64.self, at: 0)
            #expect(shards == Int64(TestDatabase.citusWorkers?.count ?? 0))

            // The rows moved to the workers, all of them, and the hash chains still verify there.
            #expect(try await pool.query(counts).single().decode(String.self, at: 0) == before)
            let verification = try await store.verifyLedgerChain(appID: app.appID, since: nil)
            #expect(verification.breaks == [])
            #expect(verification.chains == 3)

            // A second run changes nothing, and the table comments Citus dropped are back.
            #expect(try await CitusDistribution.distribute(pool, shardCount: 8) == placements)
            let comment = try await pool.query("SELECT obj_description('chains'::regclass, 'pg_class')").single()
                .decode(String?.self, at: 0)
            #expect(comment?.hasPrefix("citus: distributed by original_transaction_id") == true)
        }
    }
}
