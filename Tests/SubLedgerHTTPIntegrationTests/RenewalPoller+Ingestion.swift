import AppStoreStore
import GooglePlayStore
import Logging
import SubLedgerCore
import SubLedgerStore
import SubLedgerUseCases

extension RenewalPoller {
    /// The job over the App Store's port for `ingestion` and, given `googlePlay`, Google Play's.
    init(
        configuration: Configuration, queue: PollQueue, store: LedgerStore, catalog: CatalogStore, ingestion: Ingestion,
        refresher: ChainRefresher? = nil, googlePlay: GooglePlayIngestion? = nil, logger: Logger,
        now: @escaping @Sendable () -> Instant
    ) {
        self.init(
            configuration: configuration, queue: queue, store: store, catalog: catalog,
            ports: StorePorts(
                appStore: AppStorePort(ingestion: ingestion),
                registered: googlePlay.map {
                    [GooglePlayPort(ingestion: $0, catalog: catalog, logger: logger, now: now)]
                }
                    ?? []),
            refresher: refresher, logger: logger, now: now)
    }
}
