import AsyncHTTPClient
import Logging
import PostgresLibPQ
import SubLedgerCore
import SubLedgerStore

/// Everything the HTTP application is built from: the database, the stores' gateways, the clock, the read replicas.
/// `useCases(secretKeys:logger:)` builds from it what the routes answer with.
public struct ServiceDependencies: Sendable {
    public var pool: PostgresPool
    /// Where LISTEN connections go: `pool` unless a transaction pooler stands in front of it (then the direct
    /// connection, `DatabaseBootstrap.Opened.sessionPool(for:)`). Default nil: `pool`.
    public var listenPool: PostgresPool?
    public var migrator: Migrator
    /// The stores registered as modules, each with its way to its store (each app's credentials for it are in its
    /// catalog entry). Default none.
    public var stores = StoreRegistry()
    /// How stored inputs that could not be verified or applied are retried. Default `StoredInputRetry()`.
    public var retry = StoredInputRetry()
    /// The clock (tests pin it; the service uses the system clock).
    public var now: @Sendable () -> Instant
    /// The hot standbys that answer reads (docs/guides/scale-out.md, "Read replicas"); `nil`: the primary answers all.
    public var readReplicas: ReadReplicas? = nil

    public init(
        pool: PostgresPool, migrator: Migrator, stores: StoreRegistry, now: @escaping @Sendable () -> Instant
    ) {
        self.pool = pool
        self.migrator = migrator
        self.stores = stores
        self.now = now
    }
}

extension ServiceDependencies {
    /// The use cases the routes answer with, built on these dependencies (`LedgerUseCases` builds the stores).
    public func useCases(secretKeys: SecretKeyring, logger: Logger) -> LedgerUseCases {
        LedgerUseCases(
            pool: pool, migrator: migrator, secretKeys: secretKeys, stores: stores, retry: retry,
            readReplicas: readReplicas, logger: logger, now: now)
    }
}
