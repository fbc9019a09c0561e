import Logging
import PostgresLibPQ
import SubLedgerCore
import SubLedgerStore
import SubLedgerUseCases

// A process that speaks to the App Store alone (beside any `others`), assembled from its `AppleGateway`: what the
// tests, the benchmark tool and an embedding program build without the commands' store modules.

extension StoreRegistry {
    /// The App Store over `apple`, and `others`.
    public init(apple: AppleGateway, _ others: [any StoreRegistration] = []) {
        self.init([AppStoreRegistration(gateway: apple)] + others)
    }
}

extension StoreGateways {
    /// The App Store over `apple`, beside the stores `registry` holds, with the retry policy of Apple's
    /// configuration.
    public init(apple: AppleGateway, registry: StoreRegistry = StoreRegistry()) {
        var registrations = Array(registry.registrations.values)
        registrations.append(AppStoreRegistration(gateway: apple))
        self.init(registry: StoreRegistry(registrations), retry: apple.configuration.retry)
    }
}

extension ServiceDependencies {
    /// Dependencies whose only store is the App Store over `apple` (more join through `stores`).
    public init(pool: PostgresPool, migrator: Migrator, apple: AppleGateway, now: @escaping @Sendable () -> Instant) {
        self.init(pool: pool, migrator: migrator, stores: StoreRegistry(apple: apple), now: now)
        retry = apple.configuration.retry
    }
}

extension StorePorts {
    /// The App Store's port and `registered`, writing the ledger through the App Store's ingestion.
    public init(appStore: AppStorePort, registered: [any StorePort] = []) {
        self.init(ledger: appStore.ingestion.store, registered: [appStore] + registered)
    }
}

extension SupportLookup {
    /// Support's lookups asking Apple through `apple`.
    public init(
        store: LedgerStore, catalog: CatalogStore, apple: AppleGateway, logger: Logger,
        now: @escaping @Sendable () -> Instant
    ) {
        self.init(
            store: store, catalog: catalog,
            apple: AppStorePurchaseLookup(
                ingestion: Ingestion(store: store, catalog: catalog, apple: apple, logger: logger, now: now)),
            logger: logger, now: now)
    }
}

extension MigrationImporter {
    /// An import whose App Store rows are read through `ingestion` (Google Play's and Stripe's through theirs).
    public init(
        ingestion: Ingestion, googlePlay: (any StorePort)? = nil,
        subscriptionImports: [Store: any StoreSubscriptionImport] = [:], app: StoredApp,
        configuration: Configuration = Configuration(),
        logger: Logger = Logger(label: "subledger.import")
    ) throws(ImportError) {
        try self.init(
            ledger: ingestion.store, now: ingestion.now,
            appStore: AppStoreRowImport(ingestion: ingestion, logger: logger), googlePlay: googlePlay,
            subscriptionImports: subscriptionImports,
            app: app, configuration: configuration, logger: logger)
    }
}
