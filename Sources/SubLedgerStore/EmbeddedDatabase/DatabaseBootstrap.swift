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
        /// What stands between `pool` and PostgreSQL.
        public var pooler: DatabasePooler = .none
        /// A pool on the direct connection (`SUBLEDGER_DIRECT_DATABASE_URL`), when one is configured.
        public var direct: PostgresPool?

        init(pool: PostgresPool, embedded: RunningEmbeddedPostgres?) {
            self.pool = pool
            self.embedded = embedded
        }

        /// The pool for `work` that needs a session of its own (LISTEN, the migrator's advisory lock): the
        /// direct connection when there is one, else `pool` unless a transaction pooler is in between, where
        /// such work cannot run and is refused with what to configure.
        public func sessionPool(for work: String) throws -> PostgresPool {
            if let direct { return direct }
            guard !pooler.isTransactionPooled else {
                throw DatabasePoolerError(
                    .directConnectionRequired,
                    "\(work) needs a database session of its own, which a transaction pooler cannot keep: set "
                        + "SUBLEDGER_DIRECT_DATABASE_URL to a connection string that reaches PostgreSQL directly "
                        + "(docs/guides/scale-out.md, \"Connection poolers\")")
            }
            return pool
        }

        /// Closes the pools, then stops the embedded cluster if this process started it.
        public func close() async {
            await pool.shutdown()
            if let direct { await direct.shutdown() }
            if let embedded { await runBlocking { embedded.stop() } }
        }
    }

    /// Opens a pool of `poolSize` connections on `url`, or on the embedded cluster under `dataDirectory`
    /// (creating and starting it, and creating its database, as needed) when `url` is `nil`. `pooler` says
    /// what stands between `url` and PostgreSQL; `directURL`, when given, reaches PostgreSQL directly for the
    /// work a transaction pooler cannot carry (`Opened.sessionPool(for:)`).
    /// The `application_name` SubLedger's connections report to the server (`pg_stat_activity`) when the URL
    /// names none.
    public static let applicationName = "subledger"

    public static func open(
        url: String?, dataDirectory: String, poolSize: Int, pooler: DatabasePooler = .none, directURL: String? = nil,
        logger: Logger
    ) async throws -> Opened {
        if let url {
            var configuration = try PostgresConfiguration(
                connectionString: url, defaultApplicationName: Self.applicationName)
            configuration.maxConnections = poolSize
            configuration.transactionPooled = pooler.isTransactionPooled
            var opened = Opened(pool: PostgresPool(configuration: configuration, logger: logger), embedded: nil)
            opened.pooler = pooler
            if let directURL {
                var direct = try PostgresConfiguration(
                    connectionString: directURL, defaultApplicationName: Self.applicationName)
                direct.maxConnections = 1
                opened.direct = PostgresPool(configuration: direct, logger: logger)
            }
            return opened
        }
        let cluster = EmbeddedPostgres(
            configuration: .init(rootDirectory: dataDirectory + "/postgres"), logger: logger)
        let running = try await runBlocking { try cluster.start() }
        do {
            try await createDatabaseIfMissing(running, logger: logger)
            var configuration = try PostgresConfiguration(
                connectionString: running.databaseURL, defaultApplicationName: Self.applicationName)
            configuration.maxConnections = poolSize
            return Opened(pool: PostgresPool(configuration: configuration, logger: logger), embedded: running)
        } catch {
            await runBlocking { running.stop() }
            throw error
        }
    }

    private static func createDatabaseIfMissing(_ cluster: RunningEmbeddedPostgres, logger: Logger) async throws {
        var configuration = try PostgresConfiguration(
            connectionString: cluster.maintenanceURL, defaultApplicationName: Self.applicationName)
        configuration.maxConnections = 1
        let maintenance = PostgresPool(configuration: configuration, logger: logger)
        defer { maintenance.close() }
        let name = cluster.databaseName
        try await maintenance.withConnection { connection in
            let exists = try connection.query("SELECT 1 FROM pg_database WHERE datname = \(name)")
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
