import AppStore
import Foundation
import Hummingbird
import Logging
import PostgresLibPQ
import ServiceLifecycle
import SubLedgerCore
import SubLedgerStore
import SubLedgerUseCases

/// Runs the whole service: database (embedded or configured), schema, HTTP, graceful shutdown.
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
            let apple = try AppleGateway(configuration: configuration.apple, logger: logger)
            var dependencies = ServiceDependencies(
                pool: opened.pool, migrator: migrator, apple: apple, now: { Instant.systemNow() })
            dependencies.googlePlay = GooglePlayGateway(
                httpClient: .shared, configuration: configuration.googlePlay, logger: logger)
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
            // server span (`TracingMiddleware`; the reads answered on the event loops make none).
            let app = buildApplication(
                configuration: configuration, dependencies: dependencies, logger: logger,
                entitlementReads: tracing == nil ? .onEventLoops : .throughRouter)
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
                        apple: apple, googlePlay: dependencies.googlePlay, logger: logger,
                        now: { Instant.systemNow() }),
                    successTerminationBehavior: .ignore))
            // Webhooks: every serve process also delivers, unless `--webhook-delivery off` (docs/guides/webhooks.md).
            // Right after the pool, so it is stopped last but the pool: ServiceGroup stops services one at a time in
            // reverse order and calls one that returns while another is stopping a failure.
            if let delivery = configuration.webhookDelivery {
                services.insert(
                    .init(
                        service: WebhookDeliverer.live(
                            delivery, configuration, opened.pool, logger, listenPool: listenPool),
                        successTerminationBehavior: .ignore), at: 1)
            }
            if let tracing { services.insert(.init(service: tracing), at: 0) }
            let group = ServiceGroup(
                configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
            try await group.run()
        } catch {
            await opened.close()
            throw error
        }
        await opened.close()
    }
}

/// Brings the schema up to date (or checks that it is) once the database answers, retrying meanwhile, so
/// that `serve` starts and reports itself not ready while PostgreSQL is unreachable instead of exiting.
struct StartupSchemaCheck: Service {
    let pool: PostgresPool
    let migrator: Migrator
    /// Apply the schema's migrations (else only warn when the schema is not current).
    let migrate: Bool
    /// Where the migrator takes its session lock: `pool`, or the direct connection behind a transaction pooler.
    let migrationPool: PostgresPool
    /// What stands between `pool` and PostgreSQL, checked before anything else (a mismatch stops the process).
    let pooler: DatabasePooler
    /// The keys the stored secrets must open with: once the schema is current, a stored secret sealed under
    /// a key this process lacks stops it (a configuration error, thrown), before it serves an app.
    let secretKeys: SecretKeyring
    let logger: Logger
    var retryInterval: Duration = .seconds(5)

    /// Retries `attempt` (after a first one failed) until the database answers.
    func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            try? await Task.sleep(for: retryInterval)
            if try await attempt(firstFailure: false) {
                logger.notice("the database answers and its schema is current")
                return
            }
        }
    }

    /// Migrates (or checks the schema) once: `true` when done, `false` when the database is unreachable
    /// (an expected outage: a warning on the first failure only; /health/ready says 503 meanwhile). Other
    /// failures (a migration that does not apply) are thrown.
    func attempt(firstFailure: Bool) async throws -> Bool {
        do {
            try await pooler.check(pool)
            if migrate {
                try await migrator.migrate(migrationPool)
            } else if try await !migrator.isCurrent(pool) {
                // Keep checking: the secret-key check below must run once someone migrates.
                if firstFailure {
                    logger.warning(
                        "the database schema is not current: run `subledger migrate`; /health/ready answers 503 until then"
                    )
                }
                return false
            }
            // Secrets at rest: refuse to go on without the keys the stored secrets are sealed with.
            try await SecretStore(pool: pool, secretKeys: secretKeys, logger: logger).checkKeys()
            return true
        } catch let error as PostgresError where error.isConnectionError || error.kind == .poolTimeout {
            if firstFailure {
                logger.warning(
                    "the database is unavailable; serving with /health/ready at 503 and retrying",
                    metadata: ["error": "\(error)"])
            }
            return false
        }
    }
}

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
        recovery: NotificationRecovery.Configuration? = nil, tracing: (any Service)? = nil, logger: Logger
    ) async throws {
        // Before anything creates a metric (the Apple gateway's breaker gauge, at 0 when built): see `run`.
        if metricsPort != nil { ServiceMetrics.bootstrap() }
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
            let apple = try AppleGateway(configuration: configuration.apple, logger: logger)
            let ingestion = Ingestion(
                store: store, catalog: catalog, apple: apple, logger: logger, now: { Instant.systemNow() })
            let googlePlay = GooglePlayGateway(
                httpClient: .shared, configuration: configuration.googlePlay, logger: logger)
            let googlePlayIngestion = GooglePlayIngestion(
                store: store, gateway: googlePlay, logger: logger, now: { Instant.systemNow() })
            let job = RenewalPoller(
                configuration: poller, queue: PollQueue(pool: opened.pool), store: store, catalog: catalog,
                ingestion: ingestion, googlePlay: googlePlayIngestion, logger: logger, now: { Instant.systemNow() })
            // The job returning (`--once`) ends the run normally; without this ServiceLifecycle calls it a failure.
            // The pool first, so it closes last, after the job has given its leases back.
            var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
                .init(service: opened.pool),
                .init(service: job, successTerminationBehavior: .gracefullyShutdownGroup),
            ]
            // Missed-notification recovery belongs with the job: background work toward Apple, not per request.
            if let recovery {
                services.append(
                    onceAware(
                        NotificationRecoveryService(
                            configuration: recovery, pool: opened.pool, catalog: catalog, ingestion: ingestion,
                            once: poller.once, logger: logger),
                        once: poller.once))
            }
            if let metricsPort {
                let router = Router(context: SubLedgerRequestContext.self)
                MetricsController(
                    registry: ServiceMetrics.registry,
                    poolMetrics: PoolMetrics(pool: opened.pool, registry: ServiceMetrics.registry)
                ).register(on: router)
                services.append(
                    .init(
                        service: Application(
                            router: router,
                            configuration: .init(
                                address: .hostname(configuration.host, port: metricsPort), serverName: "SubLedger poll"),
                            logger: logger)))
            }
            // Refund requests: answers Apple's CONSUMPTION_REQUESTs within its 12 hours (ignored when it returns:
            // with --once the renewal job ends the run, after this one's cycle).
            var consumption = ConsumptionResponder.Configuration(worker: poller.worker)
            consumption.once = poller.once
            services.append(
                onceAware(
                    ConsumptionResponder(
                        configuration: consumption, store: ConsumptionStore(pool: opened.pool), catalog: catalog,
                        apple: apple,
                        logger: logger, now: { Instant.systemNow() }),
                    once: poller.once))
            // What applies owed the stores: Apple's Set App Account Token and Finish Transaction, Google's
            // acknowledgements and consumptions (docs/guides/operate.md, "Store obligations").
            var obligations = StoreObligationSender.Configuration(worker: poller.worker)
            obligations.once = poller.once
            services.append(
                onceAware(
                    StoreObligationSender.live(
                        configuration: obligations, pool: opened.pool, catalog: catalog, apple: apple,
                        googlePlay: googlePlay, logger: logger, now: { Instant.systemNow() }),
                    once: poller.once))
            // Google Play's voided purchases (refunds, chargebacks, revocations), read from the list every 10 minutes
            // per app, so one whose notification was dropped is revoked all the same (docs/guides/google-play.md).
            var voided = GooglePlayVoidedPurchasesPoller.Configuration(worker: poller.worker)
            voided.once = poller.once
            services.append(
                onceAware(
                    GooglePlayVoidedPurchasesPoller(
                        configuration: voided, ingestion: googlePlayIngestion,
                        store: GooglePlayStore(pool: opened.pool),
                        catalog: catalog, gateway: googlePlay, logger: logger, now: { Instant.systemNow() }),
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

            // Webhooks: every poll process also delivers, unless `--webhook-delivery off` (docs/guides/webhooks.md).
            // Right after the pool, so it is stopped last but the pool: ServiceGroup stops services one at a time in
            // reverse order and calls one that returns while another is stopping a failure.
            if let delivery = configuration.webhookDelivery {
                services.insert(
                    .init(
                        service: WebhookDeliverer.live(
                            delivery, configuration, opened.pool, logger, listenPool: listenPool),
                        successTerminationBehavior: .ignore), at: 1)
            }
            // First, so it stops last: the spans of the job's last pass are exported (see `run`).
            if let tracing { services.insert(.init(service: tracing), at: 0) }
            let group = ServiceGroup(
                configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
            try await group.run()
        } catch {
            await opened.close()
            throw error
        }
        await opened.close()
    }
}
