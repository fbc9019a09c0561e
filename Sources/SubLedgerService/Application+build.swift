import Hummingbird
import Logging
import PostgresLibPQ
import SubLedgerStore

/// Builds the SubLedger HTTP application on an open database.
///
/// Tests call this with their own pool and drive the result in-process or over a real socket.
public func buildApplication(
    configuration: ServiceConfiguration,
    pool: PostgresPool,
    migrator: Migrator,
    logger: Logger
) -> some ApplicationProtocol {
    let router = buildRouter(pool: pool, migrator: migrator)
    return Application(
        router: router,
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "SubLedger"),
        logger: logger
    )
}

/// The routes of the service.
func buildRouter(pool: PostgresPool, migrator: Migrator) -> Router<BasicRequestContext> {
    let router = Router(context: BasicRequestContext.self)
    HealthController(pool: pool, migrator: migrator).register(on: router)
    return router
}
