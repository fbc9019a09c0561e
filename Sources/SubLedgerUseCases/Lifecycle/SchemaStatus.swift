import PostgresLibPQ
import SubLedgerStore

/// The database schema's version against the one this build knows, as `GET /health/ready` reports it.
public struct SchemaStatus: Sendable {
    let pool: PostgresPool
    let migrator: Migrator

    public init(pool: PostgresPool, migrator: Migrator) {
        self.pool = pool
        self.migrator = migrator
    }

    /// The version the database is at (nil: no schema) and the one this build expects. Throws when the database
    /// does not answer.
    public func versions() async throws -> (current: Int?, expected: Int) {
        (try await migrator.currentVersion(pool), migrator.script.latestVersion)
    }
}
