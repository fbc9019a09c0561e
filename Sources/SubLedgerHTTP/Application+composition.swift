import Hummingbird
import Logging
import PostgresLibPQ
import SubLedgerUseCases

/// The SubLedger HTTP application as `serve` runs it: entitlement reads answered on the event loops, or, with traces
/// on (`entitlementReadsThroughRouter`), by the router, whose `ServerSpanMiddleware` gives each its server span.
package func buildApplication(
    configuration: ServiceConfiguration, dependencies: ServiceDependencies, logger: Logger,
    entitlementReadsThroughRouter: Bool
) -> some ApplicationProtocol {
    buildApplication(
        configuration: configuration, dependencies: dependencies, logger: logger,
        entitlementReads: entitlementReadsThroughRouter ? .throughRouter : .onEventLoops)
}

/// `poll --metrics-port`'s application: `/metrics` (the process's registry and `pool`'s gauges) on `host:port`.
package func buildMetricsApplication(host: String, port: Int, pool: PostgresPool, logger: Logger)
    -> some ApplicationProtocol
{
    let router = Router(context: SubLedgerRequestContext.self)
    MetricsController(
        registry: ServiceMetrics.registry, poolMetrics: PoolMetrics(pool: pool, registry: ServiceMetrics.registry)
    ).register(on: router)
    return Application(
        router: router,
        configuration: .init(address: .hostname(host, port: port), serverName: "SubLedger poll"),
        logger: logger)
}
