import LedgerTestSupport
import SubLedgerTestSupport
import Testing

@testable import SubLedgerStore

/// `subledger migrate`.
@Suite struct MigrateCommandTests {
    /// Two `subledger migrate` started together (each with its own connections, as two processes would be) leave
    /// one correct schema: the migration lock makes one wait for the other.
    @Test func twoMigratesAtOnceLeaveOneCorrectSchema() async throws {
        try await TestDatabase.withSchema { schema, _, pool in
            let url = SubLedgerCLI.databaseURL(try TestDatabase.connectionString(), schema: schema)
            let runs = await withTaskGroup(of: SubLedgerCLI.Run.self) { group in
                for _ in 0..<2 {
                    group.addTask {
                        await SubLedgerCLI.run(
                            ["migrate", "--log-level", "warning"], environment: ["DATABASE_URL": url])
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(runs.map(\.status) == [0, 0], "\(runs.map(\.output))")
            let migrator = try Migrator.bundled(logger: TestDatabase.logger)
            #expect(try await migrator.isCurrent(pool))
            let steps = try await pool.query("SELECT version FROM schema_migrations ORDER BY version")
            #expect(try steps.map { Int(try $0.decode(Int64.self, at: 0)) } == migrator.script.steps.map(\.version))
        }
    }
}
