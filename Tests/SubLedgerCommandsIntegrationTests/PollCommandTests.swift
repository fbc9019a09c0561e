import LedgerTestSupport
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
}
