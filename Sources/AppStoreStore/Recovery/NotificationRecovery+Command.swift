import Logging
import SubLedgerCore
import SubLedgerStore
import SubLedgerUseCases

extension NotificationRecovery {
    /// `subledger notifications recover`: one recovery run over what `request` covers with the App Store as
    /// `configuration` describes it, then the database is closed. The report says per app and environment what was
    /// recovered and where the history is complete.
    public static func recover(
        configuration: ServiceConfiguration, recovery: Configuration, request: RecoveryRequest, logger: Logger
    ) async throws -> RecoveryReport {
        let opened = try await DatabaseBootstrap.open(configuration, poolSize: 2, logger: logger)
        do {
            let migrator = try Migrator.bundled(logger: logger)
            if opened.isEmbedded { try await migrator.migrate(opened.pool) }
            try await DatabaseReadiness.check(
                SecretStore(pool: opened.pool, secretKeys: configuration.secretKeys, logger: logger),
                pooler: opened.pooler, migrator: migrator)
            let catalog = CatalogStore(pool: opened.pool, secretKeys: configuration.secretKeys)
            let registration = try AppStoreRegistration(configuration: configuration.apple, logger: logger)
            let gateways = StoreGateways(registry: StoreRegistry([registration]), retry: configuration.apple.retry)
            let context = gateways.context(
                store: LedgerStore(pool: opened.pool), catalog: catalog, logger: logger, now: { Instant.systemNow() })
            let report = try await NotificationRecovery(
                configuration: recovery, cursors: NotificationHistoryCursors(pool: opened.pool), catalog: catalog,
                ingestion: registration.ingestion(context), logger: logger, now: { Instant.systemNow() }
            ).run(request)
            await opened.close()
            return report
        } catch {
            await opened.close()
            throw error
        }
    }
}
