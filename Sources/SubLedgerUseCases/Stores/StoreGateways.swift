import AsyncHTTPClient
import Logging
import SubLedgerCore
import SubLedgerStore

/// The way to every store a process speaks to, built from its configuration: the one place a store's gateway is
/// made, for `serve`, `poll` and the commands alike. A gateway holds what is shared across a process's calls to
/// its store (HTTP connections, cached verifiers and clients, the circuit breaker), so a process builds it once;
/// each registered store module holds its own.
public struct StoreGateways: Sendable {
    /// The stores registered as modules, each holding its own gateway (built with its configuration).
    public var registry: StoreRegistry
    /// How stored inputs that could not be verified or applied are retried, and when they are quarantined.
    public var retry: StoredInputRetry

    public init(registry: StoreRegistry = StoreRegistry(), retry: StoredInputRetry = StoredInputRetry()) {
        self.registry = registry
        self.retry = retry
    }

    /// Every store's gateway as `configuration` describes it. Throws `ConfigurationError` when a store's settings
    /// cannot be used (an unreadable trusted root for Apple's signed data).
    public init(configuration: ServiceConfiguration, logger: Logger) throws {
        self.init(registry: try configuration.storeModules(configuration, logger), retry: configuration.apple.retry)
    }

    /// What the stores' ports write through: `store` with the retry policy configured.
    public func context(
        store: LedgerStore, catalog: CatalogStore, logger: Logger, now: @escaping @Sendable () -> Instant
    ) -> StoreContext {
        var configured = store
        configured.retry = retry
        return StoreContext(store: configured, catalog: catalog, logger: logger, now: now)
    }
}
