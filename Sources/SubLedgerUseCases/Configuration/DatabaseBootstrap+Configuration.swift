import Logging
import PostgresLibPQ
import SubLedgerStore

extension DatabaseBootstrap {
    /// Opens the database `configuration` names, with its pooler and direct connection, at `poolSize`.
    public static func open(
        _ configuration: ServiceConfiguration, poolSize: Int, logger: Logger
    ) async throws -> Opened {
        if let threads = configuration.databaseReadinessThreads {
            PostgresReadiness.setThreadCount(threads)
        }
        return try await open(
            url: configuration.databaseURL, dataDirectory: configuration.dataDirectory, poolSize: poolSize,
            pooler: configuration.databasePooler, directURL: configuration.directDatabaseURL, logger: logger)
    }
}
