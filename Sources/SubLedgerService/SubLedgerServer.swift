import Hummingbird
import Logging
import SubLedgerCore
import SubLedgerStore
import AppStore

/// Runs the whole service: database (embedded or configured), schema, HTTP, graceful shutdown.
public enum SubLedgerServer {
    /// Serves until SIGTERM or SIGINT; in-flight requests finish before the database is closed.
    public static func run(configuration: ServiceConfiguration) async throws {
        var logger = Logger(label: "subledger")
        logger.logLevel = configuration.logLevel
        let opened = try await DatabaseBootstrap.open(
            url: configuration.databaseURL,
            dataDirectory: configuration.dataDirectory,
            poolSize: configuration.databasePoolSize,
            logger: logger)
        do {
            let migrator = try Migrator.bundled(logger: logger)
            if configuration.migrateOnStart ?? opened.isEmbedded {
                try await migrator.migrate(opened.pool)
            } else if try await !migrator.isCurrent(opened.pool) {
                logger.warning("the database schema is not current: run `subledger migrate`; /health/ready answers 503 until then")
            }
            let apple = try AppleGateway(configuration: configuration.apple, logger: logger)
            let dependencies = ServiceDependencies(pool: opened.pool, migrator: migrator, apple: apple, now: { Instant.systemNow() })
            let app = buildApplication(configuration: configuration, dependencies: dependencies, logger: logger)
            try await app.runService()
        } catch {
            await opened.close()
            throw error
        }
        await opened.close()
    }
}
