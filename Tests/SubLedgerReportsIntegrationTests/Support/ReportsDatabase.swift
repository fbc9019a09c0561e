import LedgerTestSupport
import Logging
import PostgresLibPQ
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
}
