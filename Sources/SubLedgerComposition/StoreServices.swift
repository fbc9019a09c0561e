import Logging
import PostgresLibPQ
import SubLedgerCore
import SubLedgerStore
import SubLedgerUseCases

/// What a process runs for each store, built from the process's `StoreGateways`: the one place each store is
/// registered with the jobs (its ingestion, its `StorePort`, its `StoreReconciliation`). The App Store is built
/// here; every other store comes from the process's `StoreRegistry` (its registration makes its port
/// and reconciliation). Its obligations are sent by the adapter `StoreObligationSender.live` registers.
struct StoreServices: Sendable {
    let gateways: StoreGateways
    /// The App Store's ingestion: receipts, StoreKit 2 transactions, Server Notifications, the Server API.
    let appStore: Ingestion
    /// Every store's port, for the renewal job.
    let ports: StorePorts
    /// What the registered stores' ports write through.
    let context: StoreContext

    init(
        gateways: StoreGateways, store: LedgerStore, catalog: CatalogStore, logger: Logger,
        now: @escaping @Sendable () -> Instant
    ) {
        self.gateways = gateways
        appStore = Ingestion(store: store, catalog: catalog, apple: gateways.apple, logger: logger, now: now)
        let context = StoreContext(store: store, catalog: catalog, logger: logger, now: now)
        self.context = context
        ports = StorePorts(
            appStore: AppStorePort(ingestion: appStore), registry: gateways.registry, context: context)
    }

    /// Every store's reconciliation, for `poll`'s one `ReconciliationPoller`. The App Store's (notification history
    /// recovery) only when `recovery` is set (`--recovery-interval 0` leaves it out); `once` finishes a recovery's
    /// run at the group's shutdown instead of stopping after its current window.
    func reconciliations(
        recovery: NotificationRecovery.Configuration?, worker: String, once: Bool, pool: PostgresPool,
        catalog: CatalogStore, logger: Logger, now: @escaping @Sendable () -> Instant
    ) -> [any StoreReconciliation] {
        Store.allCases.compactMap { store -> (any StoreReconciliation)? in
            switch store {
            case .appStore:
                guard var recovery else { return nil }
                if once { recovery.finishOnShutdown = true }
                return NotificationRecovery(
                    configuration: recovery, cursors: NotificationHistoryCursors(pool: pool), catalog: catalog,
                    ingestion: appStore, logger: logger, now: now)
            default:
                guard let registration = gateways.registry[store], let port = ports.registered[store] else {
                    return nil
                }
                return registration.reconciliation(port: port, pool: pool, context: context, worker: worker)
            }
        }
    }
}
