import Foundation
import Logging
import PostgresLibPQ

/// Applies the migrations' steps (`migrations/`, one file each) to a database: in order, each once, one process at a time.
///
/// Two processes migrating at once serialize on a PostgreSQL advisory lock; each step runs in its own
/// transaction and is recorded in `schema_migrations` with the SHA-256 of its text, so running migrate
/// again changes nothing, and a step edited after it was applied is reported rather than ignored.
public struct Migrator: Sendable {
    /// The advisory lock key all SubLedger migrations take (an arbitrary constant: "SubLedgr" in ASCII).
    static let lockKey: Int64 = 0x5375_624C_6564_6772

    public let script: SchemaScript
    let logger: Logger

    public init(script: SchemaScript, logger: Logger) {
        self.script = script
        self.logger = logger
    }

    /// A migrator for the migrations shipped with this build.
    public static func bundled(logger: Logger) throws -> Migrator {
        try Migrator(script: BundledMigrations.script(), logger: logger)
    }

    /// What one `migrate` run did.
    public struct Report: Sendable, Hashable {
        /// Versions applied by this run, in order (empty when the database was already current).
        public var applied: [Int]
        /// The database's version after the run.
        public var version: Int
    }

    /// Applies every step the database lacks.
    @discardableResult
    public func migrate(_ pool: PostgresPool) async throws -> Report {
        let report = try await applySteps(pool)
        // On a distributed database (`subledger migrate --distribute` ran), the new steps' tables are placed as
        // their comments say and their functions adjusted for Citus, as the distribution did for the older ones.
        if !report.applied.isEmpty,
            try await CitusDistribution.placements(pool).contains(where: { $0.kind == "distributed" })
        {
            _ = try await CitusDistribution.distribute(pool)
            logger.info("placed the new schema steps on the Citus cluster", metadata: ["version": "\(report.version)"])
        }
        return report
    }

    private func applySteps(_ pool: PostgresPool) async throws -> Report {
        let script = self.script
        let logger = self.logger
        return try await pool.withConnection { connection in
            try connection.query("SELECT pg_advisory_lock(\(Self.lockKey))")
            defer { _ = try? connection.query("SELECT pg_advisory_unlock(\(Self.lockKey))") }

            try connection.execute(script: Self.versionTableSQL)
            let known = try Self.appliedSteps(connection)
            if let newest = known.keys.max(), newest > script.latestVersion {
                throw MigrationError(
                    code: .databaseIsNewer,
                    message: "the database is at schema version \(newest), this build knows up to "
                        + "\(script.latestVersion); upgrade SubLedger")
            }
            var applied: [Int] = []
            for step in script.steps {
                let checksum = try Self.checksum(step.sql, connection)
                if let recorded = known[step.version] {
                    guard recorded == checksum else {
                        throw MigrationError(
                            code: .appliedStepChanged,
                            message: "step \(step.version) (\(step.name)) was changed after it was applied; "
                                + "add a new step instead of editing a shipped one")
                    }
                    continue
                }
                try connection.execute(script: "BEGIN")
                do {
                    // One statement at a time: a Citus coordinator refuses DDL it propagates inside a script of
                    // several statements. In one transaction, as the step's text would have run.
                    for statement in SQLStatements.split(step.sql) {
                        try connection.execute(script: statement)
                    }
                    try connection.query(
                        """
                        INSERT INTO schema_migrations (version, name, checksum) VALUES (\(step.version), \(step.name),
                            \(checksum))
                        """)
                    try connection.execute(script: "COMMIT")
                } catch {
                    _ = try? connection.execute(script: "ROLLBACK")
                    throw error
                }
                logger.info("applied schema step", metadata: ["version": "\(step.version)", "name": "\(step.name)"])
                applied.append(step.version)
            }
            return Report(applied: applied, version: script.latestVersion)
        }
    }

    /// The database's applied version, or `nil` when it was never migrated.
    public func currentVersion(_ pool: PostgresPool) async throws -> Int? {
        try await pool.withConnection { connection in
            let exists = try connection.query("SELECT to_regclass('schema_migrations') IS NOT NULL")
            guard try exists.first?.decode(Bool.self, at: 0) == true else { return nil }
            let rows = try connection.query("SELECT max(version) FROM schema_migrations")
            return try rows.first?.decode(Int64?.self, at: 0).map { Int($0) }
        }
    }

    /// Whether the database has every step of this build's schema.
    public func isCurrent(_ pool: PostgresPool) async throws -> Bool {
        try await currentVersion(pool) == script.latestVersion
    }

    static let versionTableSQL = """
        CREATE TABLE IF NOT EXISTS schema_migrations (
            version     integer PRIMARY KEY,
            name        text NOT NULL,
            checksum    text NOT NULL,
            applied_at  timestamptz NOT NULL DEFAULT now()
        )
        """

    private static func appliedSteps(_ connection: PostgresConnection) throws -> [Int: String] {
        var steps: [Int: String] = [:]
        for row in try connection.query("SELECT version, checksum FROM schema_migrations") {
            steps[Int(try row.decode(Int64.self, at: 0))] = try row.decode(String.self, at: 1)
        }
        return steps
    }

    /// The step's SHA-256, computed by PostgreSQL so the store needs no crypto library.
    private static func checksum(_ sql: String, _ connection: PostgresConnection) throws -> String {
        let rows = try connection.query("SELECT encode(sha256(convert_to(\(sql), 'UTF8')), 'hex')")
        return try rows.first?.decode(String.self, at: 0) ?? ""
    }
}
