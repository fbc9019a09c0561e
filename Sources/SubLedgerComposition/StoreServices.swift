import Logging
import PostgresLibPQ
import SubLedgerCore
import SubLedgerStore
import SubLedgerUseCases

/// What a process runs for each store, built from the process's `StoreGateways`: the one place each store is
/// registered with the jobs (its `StorePort`, its `StoreReconciliation`). Every store comes from the process's
/// `StoreRegistry` (its registration makes its port and reconciliation). Its obligations are sent by the adapter
/// `StoreObligationSender.live` registers.
struct StoreServices: Sendable {
    let gateways: StoreGateways
    /// Every store's port, for the renewal job.
    let ports: StorePorts
    /// What the registered stores' ports write through.
    let context: StoreContext

    init(
        gateways: StoreGateways, store: LedgerStore, catalog: CatalogStore, logger: Logger,
        now: @escaping @Sendable () -> Instant
    ) {
        self.gateways = gateways
        let context = gateways.context(store: store, catalog: catalog, logger: logger, now: now)
        self.context = context
        ports = StorePorts(registry: gateways.registry, context: context)
    }

    /// Every store's reconciliation, for `poll`'s one `ReconciliationPoller` (a store's registration leaves its own
    /// out when configured so: the App Store's with `--recovery-interval 0`).
    func reconciliations(worker: String, pool: PostgresPool) -> [any StoreReconciliation] {
        gateways.registry.stores.compactMap { store -> (any StoreReconciliation)? in
            guard let registration = gateways.registry[store], let port = ports.registered[store] else { return nil }
            return registration.reconciliation(port: port, pool: pool, context: context, worker: worker)
        }
    }
}
