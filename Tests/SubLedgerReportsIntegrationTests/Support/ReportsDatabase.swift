import LedgerTestSupport
import Logging
import PostgresLibPQ
import SubLedgerReports
import SubLedgerStore
import SubLedgerTestSupport

/// A private, migrated PostgreSQL schema per test (the shared `TestDatabase`, plus `schema.sql`).
enum ReportsDatabase {
    static var logger: Logger { TestDatabase.logger }

    /// Runs `body` with a pool on a fresh schema holding SubLedger's tables; drops the schema afterwards.
    static func withMigratedSchema<T: Sendable>(_ body: (PostgresPool) async throws -> T) async throws -> T {
        try await TestDatabase.withSchema(template: .ledger) { _, _, pool in
            try await Migrator.bundled(logger: logger).migrate(pool)
            return try await body(pool)
        }
    }

    /// Runs the report projector until the queue is empty: the aggregates then include every apply so far.
    static func project(_ pool: PostgresPool) async throws {
        _ = try await ReportProjector(pool: pool).projectAll()
    }

    /// `projectors` projectors at once, each `batchSize` changes per batch, until the queue is empty: they share
    /// the queue and the totals rows the chains add to.
    static func projectConcurrently(_ pool: PostgresPool, projectors: Int, batchSize: Int) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<projectors {
                group.addTask { _ = try await ReportProjector(pool: pool, batchSize: batchSize).projectAll() }
            }
            try await group.waitForAll()
        }
        // A projector stops when its claim finds nothing free, possibly while another still holds rows: finish.
        try await project(pool)
    }
}
