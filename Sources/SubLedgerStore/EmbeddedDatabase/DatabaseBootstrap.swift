import Dispatch
import Logging
import PostgresLibPQ

/// Opens SubLedger's database: the configured one, or the embedded cluster when none is configured.
public enum DatabaseBootstrap {
    /// An open pool, and the embedded cluster behind it when there is one.
    public struct Opened: Sendable {
        public let pool: PostgresPool
        public let embedded: RunningEmbeddedPostgres?
        public var isEmbedded: Bool { embedded != nil }

        /// Closes the pool, then stops the embedded cluster if this process started it.
        public func close() async {
            await pool.shutdown()
            if let embedded { await runBlocking { embedded.stop() } }
        }
    }

    /// Opens a pool of `poolSize` connections on `url`, or on the embedded cluster under `dataDirectory`
    /// (creating and starting it, and creating its database, as needed) when `url` is `nil`.
    public static func open(url: String?, dataDirectory: String, poolSize: Int, logger: Logger) async throws -> Opened {
        if let url {
            var configuration = try PostgresConfiguration(connectionString: url)
            configuration.maxConnections = poolSize
            return Opened(pool: PostgresPool(configuration: configuration, logger: logger), embedded: nil)
        }
        let cluster = EmbeddedPostgres(
            configuration: .init(rootDirectory: dataDirectory + "/postgres"), logger: logger)
        let running = try await runBlocking { try cluster.start() }
        do {
            try await createDatabaseIfMissing(running, logger: logger)
            var configuration = try PostgresConfiguration(connectionString: running.databaseURL)
            configuration.maxConnections = poolSize
            return Opened(pool: PostgresPool(configuration: configuration, logger: logger), embedded: running)
        } catch {
            await runBlocking { running.stop() }
            throw error
        }
    }

    private static func createDatabaseIfMissing(_ cluster: RunningEmbeddedPostgres, logger: Logger) async throws {
        var configuration = try PostgresConfiguration(connectionString: cluster.maintenanceURL)
        configuration.maxConnections = 1
        let maintenance = PostgresPool(configuration: configuration, logger: logger)
        defer { maintenance.close() }
        let name = cluster.databaseName
        try await maintenance.withConnection { connection in
            let exists = try connection.query("SELECT 1 FROM pg_database WHERE datname = $1", [name])
            if exists.isEmpty {
                try connection.execute(script: "CREATE DATABASE \(try PostgresConnection.quoteIdentifier(name))")
            }
        }
    }
}

/// Runs blocking work (starting processes, waiting for them) on a Dispatch thread, never on Swift's
/// cooperative pool.
func runBlocking<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async {
            continuation.resume(with: Result { try work() })
        }
    }
}

func runBlocking(_ work: @escaping @Sendable () -> Void) async {
    await withCheckedContinuation { continuation in
        DispatchQueue.global().async {
            work()
            continuation.resume()
        }
    }
}
