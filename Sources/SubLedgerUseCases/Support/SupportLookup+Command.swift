import Logging
import SubLedgerCore
import SubLedgerReports
import SubLedgerStore

extension SupportLookup {
    /// What `subledger support` runs: opens the configured database, checks the schema is current, answers
    /// `query` with the configured Apple endpoints, and closes the database.
    public static func answer(
        _ query: SupportQuery, bundleID: String?, apply: Bool, configuration: ServiceConfiguration, logger: Logger
    ) async throws -> SupportAnswer {
        let opened = try await DatabaseBootstrap.open(configuration, poolSize: 2, logger: logger)
        do {
            let migrator = try Migrator.bundled(logger: logger)
            if opened.isEmbedded { try await migrator.migrate(opened.pool) }
            let secrets = SecretStore(pool: opened.pool, secretKeys: configuration.secretKeys, logger: logger)
            try await DatabaseReadiness.check(secrets, pooler: opened.pooler, migrator: migrator)
            let gateways = try StoreGateways(configuration: configuration, logger: logger)
            let lookup = SupportLookup(
                registry: gateways.registry,
                context: gateways.context(
                    store: LedgerStore(pool: opened.pool),
                    catalog: CatalogStore(pool: opened.pool, secretKeys: configuration.secretKeys), logger: logger,
                    now: { Instant.systemNow() }))
            let answer = try await lookup.lookUp(query, bundleID: bundleID, apply: apply)
            await opened.close()
            return answer
        } catch {
            await opened.close()
            throw error
        }
    }
}
