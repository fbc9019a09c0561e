import Logging
import PostgresLibPQ
import SubLedgerCore
import SubLedgerStore

extension StoreObligationSender {
    /// The sender every `serve` and `poll` process runs, with the adapter of every store: the App Store's, and
    /// each registered store's (`StoreRegistration.obligationSender`; none for a store owed nothing).
    public static func live(
        configuration: Configuration, pool: PostgresPool, catalog: CatalogStore, gateways: StoreGateways,
        logger: Logger, now: @escaping @Sendable () -> Instant
    ) -> StoreObligationSender {
        StoreObligationSender(
            configuration: configuration, store: StoreObligationStore(pool: pool), catalog: catalog,
            senders: Store.allCases.compactMap { store -> (any ObligationSending)? in
                switch store {
                case .appStore:
                    AppStoreObligationSender(
                        apple: gateways.apple, tokens: AccountTokenStore(pool: pool),
                        consumption: ConsumptionAnswerSender(
                            store: ConsumptionStore(pool: pool), apple: gateways.apple, retry: configuration.retry,
                            logger: logger),
                        externalPurchases: ExternalPurchaseReportSender(
                            store: ExternalPurchaseStore(pool: pool), apple: gateways.apple))
                default:
                    gateways.registry[store]?.obligationSender(pool: pool, logger: logger)
                }
            }, logger: logger, now: now)
    }
}
