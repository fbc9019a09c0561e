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
            FROM information_schema.columns WHERE table_schema = \(schema) ORDER BY 1
            """)
        let indexes = try await pool.query(
            "SELECT indexdef FROM pg_indexes WHERE schemaname = \(schema) ORDER BY 1")
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
