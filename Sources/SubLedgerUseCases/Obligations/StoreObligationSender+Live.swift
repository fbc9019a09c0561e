import Logging
import PostgresLibPQ
import SubLedgerCore
import SubLedgerStore

extension StoreObligationSender {
    /// The sender every `serve` and `poll` process runs, with the adapter of every registered store
    /// (`StoreRegistration.obligationSender`; none for a store owed nothing).
    public static func live(
        configuration: Configuration, pool: PostgresPool, catalog: CatalogStore, gateways: StoreGateways,
        logger: Logger, now: @escaping @Sendable () -> Instant
    ) -> StoreObligationSender {
        StoreObligationSender(
            configuration: configuration, store: StoreObligationStore(pool: pool), catalog: catalog,
            senders: gateways.registry.stores.compactMap { store in
                gateways.registry[store]?.obligationSender(pool: pool, retry: configuration.retry, logger: logger)
            }, logger: logger, now: now)
    }
}
