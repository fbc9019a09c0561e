import Foundation
import PostgresLibPQ
import SubLedgerTestSupport
import Testing

@testable import SubLedgerStore

@Suite struct MigratorTests {
    /// Every table, column, type, default and nullability of a schema: what "no change" compares.
    static func describe(_ schema: String, _ pool: PostgresPool) async throws -> [String] {
        let rows = try await pool.query(
            """
            SELECT table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable || ' '
                   || coalesce(column_default, '')
            FROM information_schema.columns WHERE table_schema = $1 ORDER BY 1
            """, [schema])
        let indexes = try await pool.query(
            "SELECT indexdef FROM pg_indexes WHERE schemaname = $1 ORDER BY 1", [schema])
        return try rows.map { try $0.decode(String.self, at: 0) } + indexes.map { try $0.decode(String.self, at: 0) }
    }

    @Test func migratingTwiceChangesNothing() async throws {
        try await TestDatabase.withSchema { schema, _, pool in
            let migrator = try Migrator.bundled(logger: TestDatabase.logger)
            let first = try await migrator.migrate(pool)
            #expect(first.applied == migrator.script.steps.map(\.version))
            let before = try await Self.describe(schema, pool)
            #expect(before.contains { $0.hasPrefix("ledger_entries.idempotency_key text NO") })

            let second = try await migrator.migrate(pool)
            #expect(second.applied.isEmpty)
            #expect(try await Self.describe(schema, pool) == before)
            #expect(try await migrator.isCurrent(pool))
            let recorded = try await pool.query("SELECT count(*) FROM schema_migrations")
            #expect(try recorded.single().decode(Int64.self, at: 0) == Int64(migrator.script.steps.count))
        }
    }

    @Test func anEditedAppliedStepIsRefused() async throws {
        try await TestDatabase.withSchema { _, _, pool in
            let original = try SchemaScript(parsing: "-- step 1: one\nCREATE TABLE one (x int);")
            try await Migrator(script: original, logger: TestDatabase.logger).migrate(pool)
            let edited = try SchemaScript(parsing: "-- step 1: one\nCREATE TABLE one (x bigint);")
            await #expect {
                try await Migrator(script: edited, logger: TestDatabase.logger).migrate(pool)
            } throws: { ($0 as? MigrationError)?.code == .appliedStepChanged }
        }
    }

    @Test func aDatabaseFromANewerBuildIsRefused() async throws {
        try await TestDatabase.withSchema { _, _, pool in
            let newer = try SchemaScript(parsing: "-- step 1: one\nSELECT 1;\n-- step 2: two\nSELECT 2;")
            try await Migrator(script: newer, logger: TestDatabase.logger).migrate(pool)
            let older = try SchemaScript(parsing: "-- step 1: one\nSELECT 1;")
            await #expect {
                try await Migrator(script: older, logger: TestDatabase.logger).migrate(pool)
            } throws: { ($0 as? MigrationError)?.code == .databaseIsNewer }
        }
    }

    @Test func aFailingStepLeavesNoTraceAndEarlierStepsStay() async throws {
        try await TestDatabase.withSchema { _, _, pool in
            let script = try SchemaScript(
                parsing: """
                    -- step 1: good
                    CREATE TABLE good (x int);
                    -- step 2: bad
                    CREATE TABLE half (x int);
                    SELECT no_such_function();
                    """)
            await #expect(throws: PostgresError.self) {
                try await Migrator(script: script, logger: TestDatabase.logger).migrate(pool)
            }
            let tables = try await pool.query(
                "SELECT to_regclass('good') IS NOT NULL, to_regclass('half') IS NOT NULL")
            #expect(try tables.single().decode(Bool.self, at: 0) == true)
            #expect(try tables.single().decode(Bool.self, at: 1) == false)
            #expect(try await Migrator(script: script, logger: TestDatabase.logger).currentVersion(pool) == 1)
        }
    }

    /// Two real `subledger migrate` processes started together leave one correct schema.
    @Test func twoProcessesMigratingAtOnceLeaveOneCorrectSchema() async throws {
        try await TestDatabase.withSchema { schema, _, pool in
            let executable = try SubLedgerExecutable.url()
            var url = try TestDatabase.connectionString()
            url += (url.contains("?") ? "&" : "?") + "options=-c%20search_path%3D\(schema)"
            let environment = ["DATABASE_URL": url, "PATH": ProcessInfo.processInfo.environment["PATH"] ?? ""]
            let statuses = try await withThrowingTaskGroup(of: Int32.self) { group in
                for index in 0..<2 {
                    group.addTask {
                        try await Task.detached {
                            try ProgramRunner.spawnAndWait(
                                [executable.path, "migrate", "--log-level", "warning"],
                                outputPath: NSTemporaryDirectory() + "subledger-migrate-\(schema)-\(index).log",
                                environment: environment)
                        }.value
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses == [0, 0])
            let migrator = try Migrator.bundled(logger: TestDatabase.logger)
            #expect(try await migrator.isCurrent(pool))
            let steps = try await pool.query("SELECT version FROM schema_migrations ORDER BY version")
            #expect(try steps.map { Int(try $0.decode(Int64.self, at: 0)) } == migrator.script.steps.map(\.version))
        }
    }

    @Test func ledgerEntriesCannotBeUpdatedOrDeleted() async throws {
        try await TestDatabase.withSchema { _, _, pool in
            try await Migrator.bundled(logger: TestDatabase.logger).migrate(pool)
            try await pool.execute(
                script: """
                    INSERT INTO apps (bundle_id, catalog) VALUES ('com.example', '{}');
                    INSERT INTO ledger_entries (app_id, idempotency_key, kind, environment, original_transaction_id,
                        product_id, effective_at)
                    SELECT app_id, 'k1', 'grant', 'Production', '1000', 'pro.monthly', now() FROM apps;
                    """)
            for statement in [
                "UPDATE ledger_entries SET reason = 'x'", "DELETE FROM ledger_entries",
                "TRUNCATE ledger_entries",
            ] {
                await #expect {
                    try await pool.execute(script: statement)
                } throws: { ($0 as? PostgresError)?.sqlState == .restrictViolation }
            }
            await #expect {
                try await pool.execute(
                    script: """
                        INSERT INTO ledger_entries (app_id, idempotency_key, kind, environment, original_transaction_id,
                            product_id, effective_at)
                        SELECT app_id, 'k1', 'grant', 'Production', '1000', 'pro.monthly', now() FROM apps
                        """)
            } throws: { ($0 as? PostgresError)?.sqlState == .uniqueViolation }
        }
    }

    @Test func aChainCannotHaveTwoCurrentOwners() async throws {
        try await TestDatabase.withSchema { _, _, pool in
            try await Migrator.bundled(logger: TestDatabase.logger).migrate(pool)
            try await pool.execute(
                script: """
                    INSERT INTO apps (bundle_id, catalog) VALUES ('com.example', '{}');
                    INSERT INTO accounts (app_id, account_id) SELECT app_id, 'A' FROM apps;
                    INSERT INTO accounts (app_id, account_id) SELECT app_id, 'B' FROM apps;
                    INSERT INTO chains (app_id, environment, original_transaction_id, product_id, product_type, state, snapshot)
                    SELECT app_id, 'Production', '1000', 'pro.monthly', 'auto_renewable', 'active', '{}' FROM apps;
                    INSERT INTO ownership_bindings (app_id, environment, original_transaction_id, sequence, account_id, started_at, started_reason)
                    SELECT app_id, 'Production', '1000', 0, 'A', now(), 'first_claim' FROM apps;
                    """)
            await #expect {
                try await pool.execute(
                    script: """
                        INSERT INTO ownership_bindings (app_id, environment, original_transaction_id, sequence, account_id, started_at, started_reason)
                        SELECT app_id, 'Production', '1000', 1, 'B', now(), 'first_claim' FROM apps
                        """)
            } throws: { ($0 as? PostgresError)?.sqlState == .uniqueViolation }
        }
    }
}

/// The `subledger` executable built beside the test bundle.
enum SubLedgerExecutable {
    static func url() throws -> URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("subledger")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        Issue.record(
            "the subledger executable was not found next to the test bundle; build with `swift build --build-tests`")
        throw MissingTestDatabase()
    }
}
