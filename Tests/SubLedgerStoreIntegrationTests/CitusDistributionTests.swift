import Foundation
import LedgerTestSupport
import PostgresLibPQ
import SubLedgerCore
import SubLedgerReports
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
            let refusal = await #expect(throws: CitusDistribution.Refusal.self) {
                _ = try await CitusDistribution.distribute(pool, shardCount: 0)
            }
            #expect(refusal?.message.contains("shard count") == true)
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

    /// A worker lost under a transaction (restarted, crashed, unreachable): the coordinator's connection to it is cut
    /// here (`ss -K`, the socket destroyed as a crash or a network fault would) before `COMMIT`. libpq's error on
    /// that link carries no SQLSTATE, so the coordinator reports XX000 "while executing command on HOST:PORT": the
    /// error reads as a remote node failure (the HTTP edge answers it 503 with `Retry-After`), the commit took
    /// nothing on any node, and the coordinator session goes on.
    @Test(.enabled(if: TestDatabase.isCitus, "runs on the Citus cluster of scripts/citus-test"))
    func aWorkerLostBeforeCommitIsARemoteNodeFailureAndCommitsNothing() async throws {
        try await TestDatabase.withSchema(maxConnections: 1, distributed: true) { _, configuration, pool in
            let database = try #require(TestDatabase.currentDatabase)
            let workers = try #require(TestDatabase.citusWorkers)
            try await pool.execute(
                script: """
                    CREATE TABLE worker_link_probe (k int PRIMARY KEY);
                    SELECT create_distributed_table('worker_link_probe', 'k');
                    """)
            let outcome: Result<Void, PostgresError> = try await pool.withConnection { connection in
                do {
                    try connection.transaction { connection in
                        // Rows on every shard, so the transaction holds a connection to each worker.
                        try connection.execute(script: "INSERT INTO worker_link_probe SELECT generate_series(1, 64)")
                        try Self.cutCoordinatorLinks(database: database, worker: workers[0], configuration)
                    }
                    return .success(())
                } catch let error as PostgresError {
                    return .failure(error)
                }
            }
            guard case .failure(let lost) = outcome else {
                Issue.record("the commit succeeded after its link to \(workers[0].host):\(workers[0].port) was cut")
                return
            }
            #expect(lost.isRemoteNodeFailure, "\(String(reflecting: lost))")
            #expect(lost.context?.contains("while executing command on \(workers[0].host):\(workers[0].port)") == true)
            #expect(!lost.isConnectionError, "the coordinator session is intact")
            let rows = try await pool.query("SELECT count(*) FROM worker_link_probe").single().decode(Int64.self, at: 0)
            #expect(rows == 0)
        }
    }

    /// Destroys the coordinator's sockets to `worker` that serve a transaction of `database` (the worker's
    /// backends for it, idle in that transaction, name their client ports); throws when there is none to cut or
    /// `ss -K` (iproute2, as root, a kernel with socket destruction) cuts none.
    private static func cutCoordinatorLinks(
        database: String, worker: (host: String, port: Int), _ configuration: PostgresConfiguration
    ) throws {
        struct LinkNotCut: Error, CustomStringConvertible { var description: String }
        var node = configuration
        node.parameters["hostaddr"] = nil
        node.parameters["host"] = worker.host
        node.parameters["port"] = String(worker.port)
        node.parameters["dbname"] = database
        node.parameters["options"] = nil
        let connection = try PostgresConnection.connect(node)
        defer { connection.close() }
        let ports = try connection.query(
            """
            SELECT client_port FROM pg_stat_activity
            WHERE datname = current_database() AND state = 'idle in transaction'
              AND application_name LIKE 'citus_internal gpid=%'
            """
        ).map { try $0.decode(Int32.self, at: 0) }
        guard !ports.isEmpty else {
            throw LinkNotCut(description: "the transaction holds no connection to \(worker.host):\(worker.port)")
        }
        for port in ports {
            let ss = Process()
            ss.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            ss.arguments = ["ss", "-K", "-t", "dst", "\(worker.host):\(worker.port)", "sport", "=", ":\(port)"]
            ss.standardOutput = FileHandle.nullDevice
            try ss.run()
            ss.waitUntilExit()
            guard ss.terminationStatus == 0 else {
                throw LinkNotCut(description: "ss -K exited \(ss.terminationStatus) for port \(port)")
            }
        }
    }

    /// A schema step that ships after the database was distributed: `subledger migrate` (and `serve`, which migrates
    /// first) applies it on the coordinator one statement at a time and places it as the distribution would have: the
    /// per-chain SQL functions made PL/pgSQL, the refreshes planned per call, and the report projector works.
    @Test(.enabled(if: TestDatabase.isCitus, "runs on the Citus cluster of scripts/citus-test"))
    func aStepShippedAfterTheDistributionIsAppliedAndPlaced() async throws {
        try await TestDatabase.withSchema(distributed: true) { _, configuration, pool in
            let migrator = try Migrator.bundled(logger: TestDatabase.logger)
            var before = migrator.script
            let newest = try #require(before.steps.last)
            before.steps.removeLast()
            try await Migrator(script: before, logger: TestDatabase.logger).migrate(pool)
            _ = try await CitusDistribution.distribute(pool, shardCount: 4)

            let report = try await migrator.migrate(pool)
            #expect(report.applied == [newest.version])
            let sqlFunctionsOnDistributedTables = try await pool.query(
                """
                SELECT p.oid::regprocedure::text FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
                WHERE p.pronamespace = current_schema()::regnamespace AND l.lanname = 'sql' AND p.proretset
                  AND p.pronargs > 0 AND p.proname LIKE 'chain\\_%\\_of'
                """
            ).map { try $0.decode(String.self, at: 0) }
            #expect(sqlFunctionsOnDistributedTables == [])
            let refreshPlans = try await pool.query(
                """
                SELECT proname::text || ' ' || coalesce(array_to_string(proconfig, ','), '') FROM pg_proc
                WHERE pronamespace = current_schema()::regnamespace AND proname LIKE 'chain\\_%\\_refresh' ORDER BY 1
                """
            ).map { try $0.decode(String.self, at: 0) }
            #expect(refreshPlans.count == 3)
            #expect(refreshPlans.allSatisfy { $0.hasSuffix("plan_cache_mode=force_custom_plan") }, "\(refreshPlans)")

            // The ledger and the report projector work on what the step left, in sessions opened after the
            // distribution (it sets the database's citus.multi_shard_modify_mode for new sessions), as a restarted
            // `serve` and `poll` open theirs.
            let fresh = PostgresPool(configuration: configuration, logger: TestDatabase.logger)
            do {
                let store = LedgerStore(pool: fresh)
                let app = try await F.app(on: fresh)
                try await FilledLedger.fill(store, app)
                let projected = try await ReportProjector(pool: fresh).projectAll()
                #expect(projected.chains > 0)
                let left = try await fresh.query("SELECT count(*) FROM report_projection_queue").single()
                    .decode(Int64.self, at: 0)
                #expect(left == 0)
                let spans = try await fresh.query("SELECT count(*) FROM chain_report_spans").single()
                    .decode(Int64.self, at: 0)
                #expect(spans > 0)
                #expect(try await store.verifyLedgerChain(appID: app.appID, since: nil).breaks == [])
            } catch {
                await fresh.shutdown()
                throw error
            }
            await fresh.shutdown()
        }
    }
}
