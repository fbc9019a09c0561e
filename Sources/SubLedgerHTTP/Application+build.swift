import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import PostgresLibPQ
import Prometheus
import SubLedgerCore
import SubLedgerUseCases

/// Builds the SubLedger HTTP application.
///
/// Tests call this with their own database and clock and drive the result over a real socket.
public func buildApplication(
    configuration: ServiceConfiguration,
    dependencies: ServiceDependencies,
    logger: Logger
) -> some ApplicationProtocol {
    buildApplication(
        configuration: configuration, dependencies: dependencies, logger: logger, entitlementReads: .onEventLoops)
}

/// Where plain entitlement reads (`GET /v1/accounts/{account_id}/entitlements`) are answered. Either way with the
/// same route table, authentication, metrics, request log and headers (`EntitlementReadRoute`).
enum EntitlementReadPath: Sendable {
    /// On the event loop that read the request, without the router (`EntitlementReadsOnEventLoop`): measured
    /// faster on 2 and 16 cores (docs/benchmarks.md). What it cannot answer goes to the router. With traces off: no
    /// request makes a span, and the router has no `ServerSpanMiddleware`.
    case onEventLoops
    /// By the router, like every other request: with traces on, since only the router's `ServerSpanMiddleware`
    /// makes a request's span.
    case throughRouter
}

/// Builds the SubLedger HTTP application with its entitlement reads answered `entitlementReads`. `metricsRegistry`
/// (tests): where the request metrics go and what `/metrics` shows instead of the process's registry.
/// `madeEventLoopRoute` (tests) is given the event loop's route when one is made.
func buildApplication(
    configuration: ServiceConfiguration,
    dependencies: ServiceDependencies,
    logger: Logger,
    entitlementReads: EntitlementReadPath,
    metricsRegistry: PrometheusCollectorRegistry? = nil,
    madeEventLoopRoute: (@Sendable (EntitlementReadRoute) -> Void)? = nil
) -> some ApplicationProtocol {
    ServiceMetrics.bootstrap()
    let useCases = dependencies.useCases(secretKeys: configuration.secretKeys, logger: logger)
    // One definition of each, for the router and the event loop's reads alike.
    let requestMetrics =
        metricsRegistry.map { RequestMetrics(factory: PrometheusMetricsFactory(registry: $0)) } ?? RequestMetrics()
    let appData = AppDataAccess(keys: useCases.keys, audit: useCases.audit, now: dependencies.now)
    let router = buildRouter(
        dependencies: dependencies, useCases: useCases, logger: logger,
        metricsRegistry: metricsRegistry ?? ServiceMetrics.registry, requestMetrics: requestMetrics, appData: appData,
        traced: entitlementReads == .throughRouter)
    // Over every route: a known path asked with a method it does not take is answered 405, not 404.
    MethodNotAllowed.register(on: router)
    // With read replicas every read goes through `LedgerReads`' routing.
    var eventLoopRoute: EntitlementReadRoute?
    if entitlementReads == .onEventLoops, dependencies.readReplicas == nil {
        let route = EntitlementReadRoute(
            appData: appData, apps: useCases.apps, reads: useCases.entitlementReads,
            now: dependencies.now, metrics: requestMetrics, logger: logger)
        madeEventLoopRoute?(route)
        eventLoopRoute = route
    }
    let entitlementReadRoute = eventLoopRoute
    let idleTimeout = configuration.idleTimeout
    let requestTimeout = configuration.requestTimeout
    return Application(
        router: router,
        server: HTTPServerBuilder { responder in
            SubLedgerHTTP1Channel(
                responder: responder, idleTimeout: idleTimeout, requestTimeout: requestTimeout,
                entitlementReads: entitlementReadRoute)
        },
        configuration: .init(
            address: .hostname(configuration.host, port: configuration.port), serverName: ServerHeaders.name),
        services: [
            CacheInvalidationService(
                pool: dependencies.listenPool ?? dependencies.pool, apps: useCases.apps, keys: useCases.keys,
                logger: logger)
        ]
            // Read replicas: measures their lag while serving, closes their pools after HTTP has drained.
            + (dependencies.readReplicas.map { [$0] } ?? []),
        logger: logger
    )
}

/// The routes of the service, each answered through `useCases`; with `traced` (traces on) each request in its server
/// span (`ServerSpanMiddleware`).
func buildRouter(
    dependencies: ServiceDependencies, useCases: LedgerUseCases, logger: Logger,
    metricsRegistry: PrometheusCollectorRegistry = ServiceMetrics.registry,
    requestMetrics: RequestMetrics = RequestMetrics(),
    appData: AppDataAccess? = nil,
    traced: Bool
) -> Router<SubLedgerRequestContext> {
    let apps = useCases.apps
    let keys = useCases.keys
    let router = Router(context: SubLedgerRequestContext.self)
    // One stack of fixed types: each layer calls the next directly, where middleware added one by one is called
    // through an existential and a closure per layer on every request.
    router.addMiddleware {
        // Outermost, so it sees the final status of every request (including errors and unknown routes).
        RequestMetricsMiddleware(metrics: requestMetrics)
        // A server span per request named `METHOD route` (docs/guides/operate.md, "Traces"), continuing the caller's
        // `traceparent`; outside the request log and the error mapping, so its lines carry the trace id and the
        // span sees the status answered. Left out with traces off, where each request paid for a no-op span (its
        // attributes and the task-local context bound around the rest).
        if traced { ServerSpanMiddleware() }
        RequestLogMiddleware()
        ErrorMiddleware()
    }
    // What every route checks of a request before its handler reads it: a body above the limit (413), a query
    // parameter the route does not take (400 `unknown_parameter`, `RouteQueryParameters`), and a consistency token
    // that is not one (400; read replicas: write responses carry a token, reads may present one,
    // docs/guides/operate.md). On routes with a key these come after authentication, so a request without a
    // valid key is answered 401 whatever else is wrong with it.
    let consistency = ConsistencyTokenMiddleware(
        tokens: useCases.consistencyTokens, pushPaths: dependencies.stores.pushPathsWithoutConsistencyToken,
        logger: logger)
    let open = router.group().addMiddleware {
        BodyLimitMiddleware()
        QueryParameterMiddleware()
        consistency
    }
    HealthController(schema: useCases.schema).register(on: open)
    let poolMetrics = PoolMetrics(pool: dependencies.pool, registry: metricsRegistry)
    MetricsController(registry: metricsRegistry, poolMetrics: poolMetrics).register(on: open)
    OpenAPIController().register(on: open)

    let stores = useCases.stores
    // What each store starts beside a serving process (the App Store: receipts deferred while Apple failed are made
    // due when it answers again).
    for store in dependencies.stores.stores { dependencies.stores[store]?.prepareToServe(useCases.storeContext) }
    NotificationsController(stores: stores).register(on: open)
    // Google Play: purchases verified with the Developer API and acknowledged through the outbox, and real-time
    // developer notifications pushed by Pub/Sub with an OIDC token (docs/guides/google-play.md).
    GooglePlayNotificationsController(stores: stores).register(on: open)
    // Every store whose pushes are signed in a header with the app's secret (Stripe's webhooks, Paddle's
    // notifications): one route each, mounted from its registration.
    for controller in SignedPushController.all(in: dependencies.stores, stores: stores) {
        controller.register(on: open)
    }

    // Which key may call which route: `RoutePermissions`; what admin and support keys do is written to the audit
    // log (docs/guides/accounts.md, "Roles and the audit log").
    let audit = useCases.audit
    // The group's key check and permissions, which the event loop's entitlement read applies too.
    let appData = appData ?? AppDataAccess(keys: keys, audit: audit, now: dependencies.now)
    let v1 = router.group(AppDataAccess.group).addMiddleware {
        appData.authentication
        appData.authorization
        BodyLimitMiddleware()
        QueryParameterMiddleware()
        consistency
    }
    OrdersController(apps: apps, orders: useCases.orders, now: dependencies.now).register(on: v1)
    SubmissionsController(apps: apps, orders: useCases.orders, stores: stores).register(on: v1)
    GooglePlayPurchasesController(apps: apps, stores: stores).register(on: v1)
    // Web purchases: the order and the store's hosted checkout, one route for each store that offers one, mounted
    // from its registration (docs/guides/stripe.md, docs/guides/paddle.md).
    for controller in WebCheckoutController.all(
        in: dependencies.stores, checkouts: useCases.webCheckouts, apps: apps, now: dependencies.now)
    {
        controller.register(on: v1)
    }
    StripePurchasesController(apps: apps, stores: stores).register(on: v1)
    // App purchases: which account owns the app itself (a paid app, a pre-order), from StoreKit 2's AppTransaction.
    AppTransactionsController(apps: apps, claims: useCases.appTransactionClaims).register(on: v1)
    let erasures = useCases.erasures
    AccountsController(apps: apps, reads: useCases.reads, erasures: erasures, now: dependencies.now).register(on: v1)
    // Refund requests: the customer's consent and the purchase's usage (docs/guides/operate.md, "Apple asks about a
    // refund").
    ConsumptionController(apps: apps, records: useCases.consumption, now: dependencies.now).register(on: v1)
    // Offer signatures: StoreKit's promotional and introductory offers, signed with the catalog's key
    // (docs/guides/offers.md).
    OffersController(apps: apps, signatures: useCases.offerSignatures).register(on: v1)

    // Granted entitlements (/v1/accounts/{id}/grants): beside the account's reads, for admin and support keys
    // (`RoutePermissions`), never an app's key.
    let grantRoutes = router.group("v1").addMiddleware {
        APIKeyMiddleware(keys: keys)
        AuthorizationMiddleware(fallback: .operations, audit: audit, now: dependencies.now)
        BodyLimitMiddleware()
        QueryParameterMiddleware()
        consistency
    }
    GrantsController(grants: useCases.grants).register(on: grantRoutes)
    MergesController(merges: useCases.merges).register(on: grantRoutes)
    // Erasure (DELETE /v1/accounts/{id}): admin keys only (`RoutePermissions`).
    ErasuresController(erasures: erasures).register(on: grantRoutes)

    let adminReports = router.group("v1/admin").addMiddleware {
        APIKeyMiddleware(keys: keys)
        AuthorizationMiddleware(fallback: .operations, audit: audit, now: dependencies.now)
        BodyLimitMiddleware()
        QueryParameterMiddleware()
        consistency
    }
    let adminPage = router.group("admin").addMiddleware {
        APIKeyMiddleware(keys: keys, acceptsBasic: true)
        AuthorizationMiddleware(fallback: .operations, audit: audit, now: dependencies.now)
        BodyLimitMiddleware()
        QueryParameterMiddleware()
        consistency
    }
    // Support lookups (/v1/admin/lookup/...) and the admin page's search box.
    let support = useCases.support
    SupportController(lookup: support).register(on: adminReports)
    AdminController(reads: useCases.reads, now: dependencies.now, support: support)
        .register(reportsOn: adminReports, pageOn: adminPage)
    // The audit log (/v1/admin/audit and /admin/audit), admin keys only.
    AuditController(audit: audit).register(on: adminReports, pageOn: adminPage)
    // Webhook endpoints (/v1/admin/webhooks, docs/guides/webhooks.md "Endpoints").
    WebhooksController(admin: useCases.webhooks).register(on: adminReports)
    return router
}
