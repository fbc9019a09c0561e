import PostgresLibPQ
import SubLedgerTestSupport

@testable import SubLedgerStore

extension Migrator {
    /// Migrates `pool` through the bundled steps before `version`, as a build of that time left the database, and
    /// on Citus (scripts/citus-test) distributes it as such a build would have: the upgrade a step under test then
    /// runs on. Returns the bundled migrator, whose `migrate` applies the rest.
    static func bundled(before version: Int, on pool: PostgresPool) async throws -> Migrator {
        let bundled = try Migrator.bundled(logger: TestDatabase.logger)
        var before = bundled.script
        before.steps = before.steps.filter { $0.version < version }
        try await Migrator(script: before, logger: TestDatabase.logger).migrate(pool)
        if TestDatabase.isCitus { _ = try await CitusDistribution.distribute(pool, shardCount: 4) }
        return bundled
    }
}
