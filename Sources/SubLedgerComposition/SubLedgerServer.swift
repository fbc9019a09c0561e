import Foundation
import Logging
import PostgresLibPQ
import ServiceLifecycle
import SubLedgerCore
import SubLedgerHTTP
import SubLedgerStore
import SubLedgerUseCases

/// The composition root: which services each process runs (`run` for `serve`, and `poll`), and
/// how their stores' gateways (`StoreGateways`), ports and reconciliations (`StoreServices`), obligation sender and
/// pollers are built. Each process builds its gateways once and hands them to everything it runs.
public enum SubLedgerServer {
    /// Serves until SIGTERM or SIGINT; in-flight requests finish before the database is closed. `tracing` (the
    /// installed tracer's exporter, when traces are on) runs beside the others and stops after them, so the spans
    /// of the last requests are exported.
    public static func run(configuration: ServiceConfiguration, tracing: (any Service)? = nil) async throws {
        // Before anything creates a metric: the Apple gateway's circuit breaker records its gauge at 0 when built,
        // and a metric created before the bootstrap is never exported.
        ServiceMetrics.bootstrap()
        var logger = Logger(label: "subledger")
        logger.logLevel = configuration.logLevel
        let opened = try await DatabaseBootstrap.open(
            configuration, poolSize: configuration.databasePoolSize, logger: logger)
        do {
            let migrator = try Migrator.bundled(logger: logger)
            let gateways = try StoreGateways(configuration: configuration, logger: logger)
            gateways.registry.declareMetrics(poll: false)
            var dependencies = ServiceDependencies(
                pool: opened.pool, migrator: migrator, stores: gateways.registry, now: { Instant.systemNow() })
            dependencies.retry = gateways.retry
            // Behind a transaction pooler LISTEN needs the direct connection (refused without one).
            let listenPool = try opened.sessionPool(for: "LISTEN (cache invalidation, webhook delivery)")
            dependencies.listenPool = listenPool
            // Read replicas (docs/guides/scale-out.md, "Read replicas"): run by the application, beside its server.
            if let replicas = configuration.readReplicas {
                dependencies.readReplicas = try ReadReplicas(
                    configuration: replicas,
                    primary: LedgerStore(pool: opened.pool), logger: logger)
            }
            // With traces on, entitlement reads go through the router like every request, so that each has its
            // server span (`ServerSpanMiddleware`; the reads answered on the event loops make none).
            let app = buildApplication(
                configuration: configuration, dependencies: dependencies, logger: logger,
                entitlementReadsThroughRouter: tracing != nil)
            // The schema is settled before serving when the database answers; when it is down, serve anyway
            // (/health/ready answers 503) and keep trying in the background.
            let migrate = configuration.migrateOnStart ?? opened.isEmbedded
            let schema = StartupSchemaCheck(
                pool: opened.pool, migrator: migrator, migrate: migrate,
                migrationPool: migrate ? try opened.sessionPool(for: "migrating on start") : opened.pool,
                pooler: opened.pooler, secretKeys: configuration.secretKeys, logger: logger)
            // The pool first: the group stops services in reverse order, so it closes after HTTP has drained.
            var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
                .init(service: opened.pool), .init(service: app),
            ]
            if try await !schema.attempt(firstFailure: true) {
                services.append(.init(service: schema, successTerminationBehavior: .ignore))
            }
            // What committed applies owe the stores (docs/guides/operate.md, "Store obligations"): every serve process
            // sends them too, as every poll does, so a Google purchase is acknowledged without waiting for `poll`.
            // Named by host and process: two hosts' processes can have the same id, and a lease names its holder.
            let serveWorker = "serve-\(ProcessInfo.processInfo.hostName)-\(ProcessInfo.processInfo.processIdentifier)"
            services.append(
                .init(
                    service: StoreObligationSender.live(
                        configuration: .init(worker: serveWorker), pool: opened.pool,
                        catalog: CatalogStore(pool: opened.pool, secretKeys: configuration.secretKeys),
                        gateways: gateways, logger: logger, now: { Instant.systemNow() }),
                    successTerminationBehavior: .ignore))
            try await runGroup(
                services, configuration: configuration, pool: opened.pool, listenPool: listenPool, tracing: tracing,
                logger: logger)
        } catch {
            await opened.close()
            throw error
        }
        await opened.close()
    }

    /// Runs `services` (the pool first) as one group until SIGTERM or SIGINT, with what every process adds: the
    /// webhook deliverer, unless `--webhook-delivery off` (docs/guides/webhooks.md), right after the pool, so it is
    /// stopped last but the pool (ServiceGroup stops services one at a time in reverse order and calls one that
    /// returns while another is stopping a failure); and the tracer first, so it stops last and the spans of the
    /// last requests and passes are exported.
    static func runGroup(
        _ services: [ServiceGroupConfiguration.ServiceConfiguration], configuration: ServiceConfiguration,
        pool: PostgresPool, listenPool: PostgresPool, tracing: (any Service)?, logger: Logger
    ) async throws {
        var services = services
        if let delivery = configuration.webhookDelivery {
            services.insert(
                .init(
                    service: WebhookDeliverer.live(delivery, configuration, pool, logger, listenPool: listenPool),
                    successTerminationBehavior: .ignore), at: 1)
        }
        if let tracing { services.insert(.init(service: tracing), at: 0) }
        let group = ServiceGroup(
            configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }
}
