import Logging
import PostgresLibPQ
import ServiceLifecycle
import SubLedgerStore

/// Brings the schema up to date (or checks that it is) once the database answers, retrying meanwhile, so
/// that `serve` starts and reports itself not ready while PostgreSQL is unreachable instead of exiting.
struct StartupSchemaCheck: Service {
    let pool: PostgresPool
    let migrator: Migrator
    /// Apply the schema's migrations (else only warn when the schema is not current).
    let migrate: Bool
    /// Where the migrator takes its session lock: `pool`, or the direct connection behind a transaction pooler.
    let migrationPool: PostgresPool
    /// What stands between `pool` and PostgreSQL, checked before anything else (a mismatch stops the process).
    let pooler: DatabasePooler
    /// The keys the stored secrets must open with: once the schema is current, a stored secret sealed under
    /// a key this process lacks stops it (a configuration error, thrown), before it serves an app.
    let secretKeys: SecretKeyring
    let logger: Logger
    var retryInterval: Duration = .seconds(5)

    /// Retries `attempt` (after a first one failed) until the database answers.
    func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            try? await Task.sleep(for: retryInterval)
            if try await attempt(firstFailure: false) {
                logger.notice("the database answers and its schema is current")
                return
            }
        }
    }

    /// Migrates (or checks the schema) once: `true` when done, `false` when the database is unreachable
    /// (an expected outage: a warning on the first failure only; /health/ready says 503 meanwhile). Other
    /// failures (a migration that does not apply) are thrown.
    func attempt(firstFailure: Bool) async throws -> Bool {
        do {
            try await pooler.check(pool)
            if migrate {
                try await migrator.migrate(migrationPool)
            } else if try await !migrator.isCurrent(pool) {
                // Keep checking: the secret-key check below must run once someone migrates.
                if firstFailure {
                    logger.warning(
                        "the database schema is not current: run `subledger migrate`; /health/ready answers 503 until then"
                    )
                }
                return false
            }
            // Secrets at rest: refuse to go on without the keys the stored secrets are sealed with.
            try await SecretStore(pool: pool, secretKeys: secretKeys, logger: logger).checkKeys()
            return true
        } catch let error as PostgresError where error.isConnectionError || error.kind == .poolTimeout {
            if firstFailure {
                logger.warning(
                    "the database is unavailable; serving with /health/ready at 503 and retrying",
                    metadata: ["error": "\(error)"])
            }
            return false
        }
    }
}
