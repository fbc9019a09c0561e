import Logging
import SubLedgerStore

/// How `subledger serve` runs: where it listens, which database it uses, how it logs.
public struct ServiceConfiguration: Sendable {
    /// The address to listen on. Default `127.0.0.1` (the Docker image sets `0.0.0.0`).
    public var host: String
    /// The TCP port. Default 8080.
    public var port: Int
    /// A libpq URL or conninfo string. `nil` (the default): the embedded cluster under `dataDirectory`.
    public var databaseURL: String?
    /// Where SubLedger keeps local state (the embedded cluster). Default `.subledger`.
    public var dataDirectory: String
    /// The most database connections this process opens. Default 10.
    public var databasePoolSize: Int
    /// What stands between `databaseURL` and PostgreSQL (docs/guides/scale-out.md, "Connection poolers"). Default none.
    public var databasePooler: DatabasePooler = .none
    /// A connection string that reaches PostgreSQL directly, used behind a transaction pooler for LISTEN and
    /// migrations only. Default nil.
    public var directDatabaseURL: String?
    /// How many threads of the process wait for the database sockets' replies (`PostgresReadiness`;
    /// `SUBLEDGER_POSTGRES_READINESS_THREADS`). Default nil: one per 4 cores the process may run on, at most 8.
    public var databaseReadinessThreads: Int?
    /// Apply the schema's migrations on start. Default: on for the embedded database, off for a configured one
    /// (run `subledger migrate` as a deployment step there).
    public var migrateOnStart: Bool?
    /// Default `info`.
    public var logLevel: Logger.Level
    /// Where Apple is and which roots sign its data.
    public var apple: AppleConfiguration
    /// The stores registered as modules, each with its configuration (where its API is, the store's or its
    /// simulator's, and how it is called). Made when the process builds its gateways, after its tracer is set:
    /// AsyncHTTPClient takes the process's tracer when a client is made, so a registration made earlier would call
    /// its store untraced. Default none.
    /// Called with the process's configuration (a store module reads its own part, such as `apple`); throws
    /// `ConfigurationError` when a store's settings cannot be used.
    public var storeModules: @Sendable (ServiceConfiguration, Logger) throws -> StoreRegistry = { _, _ in
        StoreRegistry()
    }
    /// The keys that seal the apps' secrets at rest, newest first (docs/guides/operate.md, "Secrets at rest").
    /// Default none: secrets stored unsealed can be read, sealed ones cannot.
    public var secretKeys: SecretKeyring = SecretKeyring()
    /// How this process delivers webhooks; `nil`: it does not (`--webhook-delivery off`). Default on.
    public var webhookDelivery: WebhookDeliverer.Configuration? = WebhookDeliverer.Configuration()
    /// Hot standbys that answer reads (docs/guides/scale-out.md, "Read replicas"); `nil` (the default): none.
    public var readReplicas: ReadReplicaConfiguration? = nil
    /// How long an HTTP connection may sit idle before the server closes it. Default 30 seconds.
    public var idleTimeout: Duration = .seconds(30)
    /// How long a request may take to arrive once its first byte has: one whose headers or body are still
    /// incomplete then is answered 408 `request_timeout` and its connection closed. Default 30 seconds.
    public var requestTimeout: Duration = .seconds(30)

    public init(
        host: String = "127.0.0.1",
        port: Int = 8080,
        databaseURL: String? = nil,
        dataDirectory: String = ".subledger",
        databasePoolSize: Int = 10,
        migrateOnStart: Bool? = nil,
        logLevel: Logger.Level = .info,
        apple: AppleConfiguration = .init()
    ) {
        self.host = host
        self.port = port
        self.databaseURL = databaseURL
        self.dataDirectory = dataDirectory
        self.databasePoolSize = databasePoolSize
        self.migrateOnStart = migrateOnStart
        self.logLevel = logLevel
        self.apple = apple
    }
}
