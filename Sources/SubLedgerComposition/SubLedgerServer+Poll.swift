import Foundation
import Logging
import PostgresLibPQ
import ServiceLifecycle
import SubLedgerCore
import SubLedgerHTTP
import SubLedgerStore
import SubLedgerUseCases

extension SubLedgerServer {
    /// Runs the renewal job until it is done (`--once`) or SIGTERM/SIGINT, then gives its leases back.
    /// With `metricsPort`, `/metrics` (Prometheus) is served on `configuration.host` at that port meanwhile.
    /// A side service of `poll`: ignored when it returns; under `--once` it returns only when the group stops it
    /// (`ReturnsOnShutdown`), so it never ends while another service is being stopped.
    static func onceAware(_ service: some Service, once: Bool) -> ServiceGroupConfiguration.ServiceConfiguration {
        once
            ? .init(service: ReturnsOnShutdown(service), successTerminationBehavior: .ignore)
            : .init(service: service, successTerminationBehavior: .ignore)
    }

    public static func poll(
        configuration: ServiceConfiguration, poller: RenewalPoller.Configuration, metricsPort: Int? = nil,
        tracing: (any Service)? = nil, logger: Logger
    ) async throws {
        // Before anything creates a metric (the Apple gateway's breaker gauge, at 0 when built): see `run`.
        if metricsPort != nil {
            ServiceMetrics.bootstrap()
            MetricDeclarations.declarePoll()
        }
        let opened = try await DatabaseBootstrap.open(
            configuration, poolSize: max(2, poller.concurrency + 2), logger: logger)
        do {
            let migrator = try Migrator.bundled(logger: logger)
            if opened.isEmbedded { try await migrator.migrate(opened.pool) }
            try await opened.pooler.check(opened.pool)
            let listenPool =
                configuration.webhookDelivery == nil
                ? opened.pool : try opened.sessionPool(for: "LISTEN (webhook delivery)")
            guard try await migrator.isCurrent(opened.pool) else {
                throw ConfigurationError("the database schema is not current: run `subledger migrate` first")
            }
            try await SecretStore(pool: opened.pool, secretKeys: configuration.secretKeys, logger: logger).checkKeys()
            let store = LedgerStore(pool: opened.pool)
            let catalog = CatalogStore(pool: opened.pool, secretKeys: configuration.secretKeys)
            let gateways = try StoreGateways(configuration: configuration, logger: logger)
            if metricsPort != nil { gateways.registry.declareMetrics(poll: true) }
            let stores = StoreServices(
                gateways: gateways, store: store, catalog: catalog, logger: logger, now: { Instant.systemNow() })
            let job = RenewalPoller(
                configuration: poller, queue: PollQueue(pool: opened.pool), store: stores.context.store,
                catalog: catalog,
                ports: stores.ports, logger: logger, now: { Instant.systemNow() })
            // The job returning (`--once`) ends the run normally; without this ServiceLifecycle calls it a failure.
            // The pool first, so it closes last, after the job has given its leases back.
            var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
                .init(service: opened.pool),
                .init(service: job, successTerminationBehavior: .gracefullyShutdownGroup),
            ]
            // What every store's dropped pushes missed, read back from the store: the App Store's notification
            // history, Google Play's voided purchases (docs/guides/operate.md, docs/guides/google-play.md). One
            // poller for every store; background work toward the stores, not per request.
            var reconciliation = ReconciliationPoller.Configuration()
            reconciliation.once = poller.once
            services.append(
                onceAware(
                    ReconciliationPoller(
                        configuration: reconciliation,
                        reconciliations: stores.reconciliations(worker: poller.worker, pool: opened.pool),
                        logger: logger),
                    once: poller.once))
            if let metricsPort {
                services.append(
                    .init(
                        service: buildMetricsApplication(
                            host: configuration.host, port: metricsPort, pool: opened.pool, logger: logger)))
            }
            // What applies owed the stores: Apple's Set App Account Token, Finish Transaction and answers to its
            // consumption requests, Google's acknowledgements and consumptions (docs/guides/operate.md, "Store
            // obligations").
            var obligations = StoreObligationSender.Configuration(worker: poller.worker)
            obligations.once = poller.once
            services.append(
                onceAware(
                    StoreObligationSender.live(
                        configuration: obligations, pool: opened.pool, catalog: catalog, gateways: gateways,
                        logger: logger, now: { Instant.systemNow() }),
                    once: poller.once))
            // The entitlement read model of accounts from before it existed (reads never write, so they cannot).
            var backfill = EntitlementBackfill.Configuration()
            backfill.once = poller.once
            services.append(
                onceAware(
                    EntitlementBackfill(
                        configuration: backfill, catalog: catalog, readModel: EntitlementReadStore(pool: opened.pool),
                        logger: logger),
                    once: poller.once)
            )
            // Webhooks: the clock's time-driven events (entitlement.expired, a grace period's end).
            var webhookClock = WebhookClock.Configuration()
            webhookClock.once = poller.once
            services.append(
                onceAware(
                    WebhookClock(
                        configuration: webhookClock, store: store, logger: logger, now: { Instant.systemNow() }),
                    once: poller.once))

            // The reports' aggregates follow the ledger (docs/explanation/reports.md, "Freshness"). Right after the
            // pool (the webhook deliverer goes before it below), so it stops after every service that applies inputs:
            // with
            // --once it projects when the group stops, after their passes.
            var projection = ReportProjectionService.Configuration()
            projection.once = poller.once
            services.insert(
                .init(
                    service: ReportProjectionService(
                        configuration: projection, pool: opened.pool, logger: logger, now: { Instant.systemNow() }),
                    successTerminationBehavior: .ignore), at: 1)
            try await runGroup(
                services, configuration: configuration, pool: opened.pool, listenPool: listenPool, tracing: tracing,
                logger: logger)
        } catch {
            await opened.close()
            throw error
        }
        await opened.close()
    }
}
