import LedgerTestSupport
import SubLedgerCore
import SubLedgerStore
import SubLedgerTestSupport
import Testing

/// `subledger poll`, as cron runs it.
@Suite struct PollCommandTests {
    /// `poll --once` runs one cycle and exits 0 (ServiceLifecycle must not take the job's return as a failure).
    @Test func pollOnceRunsACycleAndExitsZero() async throws {
        try await TestDatabase.withSchema(template: .ledger) { schema, _, pool in
            try await Migrator.bundled(logger: TestDatabase.logger).migrate(pool)
            let url = SubLedgerCLI.databaseURL(try TestDatabase.connectionString(), schema: schema)
            let run = await SubLedgerCLI.run(
                ["poll", "--once", "--log-level", "info"], environment: ["DATABASE_URL": url])
            #expect(run.status == 0, "\(run.output)")
            #expect(run.output.contains("poll cycle 1: checked 0"), "\(run.output)")
        }
    }

    /// Accounts listed for the entitlement read model's backfill (a database filled before it existed) are
    /// backfilled by `poll`, since reads never write: a read leaves them listed, `poll --once` takes them off.
    @Test func pollBackfillsTheEntitlementReadModelThatReadsLeaveAlone() async throws {
        typealias F = LedgerFixtures
        try await TestDatabase.withSchema(template: .ledger) { schema, _, pool in
            try await Migrator.bundled(logger: TestDatabase.logger).migrate(pool)
            let store = LedgerStore(pool: pool)
            let app = try await F.app(on: store.pool)
            for (index, name) in ["ada", "bo", "cy"].enumerated() {
                let chain = "o\(index)"
                try await store.apply(
                    F.receipt(by: F.account(name), [F.subscription("t\(index)", chain: chain, from: 0, to: 30)], on: 0),
                    app: app, now: F.day(0))
            }
            // As step 13 left a database filled before it: no periods, every owner listed.
            try await pool.execute(
                script: """
                    DELETE FROM account_entitlement_periods;
                    INSERT INTO account_entitlement_backfill (app_id, account_id)
                    SELECT DISTINCT app_id, account_id FROM ownership_bindings;
                    """)
            func listed() async throws -> Int64 {
                try await pool.query("SELECT count(*) FROM account_entitlement_backfill").single().decode(
                    Int64.self, at: 0)
            }
            let read = try await EntitlementReadStore(pool: store.pool).read(
                of: F.account("ada"), app: app, at: F.day(1))
            #expect(read.entitlements.map(\.entitlementID) == ["pro"])
            #expect(try await listed() == 3)

            let url = SubLedgerCLI.databaseURL(try TestDatabase.connectionString(), schema: schema)
            let run = await SubLedgerCLI.run(
                ["poll", "--once", "--log-level", "info"],
                environment: ["DATABASE_URL": url, "SUBLEDGER_SECRET_KEY": F.secretKeys.keys[0].base64])
            #expect(run.status == 0, "\(run.output)")
            #expect(run.output.contains("backfilled 3 accounts"), "\(run.output)")
            #expect(try await listed() == 0)
            let periods = try await pool.query("SELECT count(DISTINCT account_id) FROM account_entitlement_periods")
            #expect(try periods.single().decode(Int64.self, at: 0) == 3)
            let again = try await EntitlementReadStore(pool: store.pool).read(
                of: F.account("ada"), app: app, at: F.day(1))
            #expect(again.entitlements == read.entitlements)
        }
    }
}
