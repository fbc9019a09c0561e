import Logging
import PostgresLibPQ
import SubLedgerCore
import SubLedgerStore

/// What a store module gives the rest of the server, exported once by the module (`AppStoreRegistration`,
/// `GooglePlayRegistration`, `StripeRegistration`): its port, its reconciliation, what it is owed after an apply, its
/// push route and how that route is treated, the metrics it declares, and the capabilities it offers beyond the port
/// (a web checkout, an import of existing subscribers, offer signatures, support lookups; `StoreCapabilities.swift`).
/// Built once, with its configuration and the gateway that configuration makes, at the composition root, which hands
/// every registration to one `StoreRegistry`; nothing else names a store module.
public protocol StoreRegistration: Sendable {
    /// The store it speaks for.
    var store: Store { get }

    /// The route the store posts its pushes to, `nil` when it pushes nothing.
    var pushRoute: StorePushRoute? { get }

    /// The store's port for a process that writes the ledger through `context`.
    func port(_ context: StoreContext) -> any StorePort

    /// The store's reconciliation, run by `poll`'s `ReconciliationPoller`, over the port `port(_:)` made; `nil` when
    /// the store has none.
    func reconciliation(port: any StorePort, pool: PostgresPool, context: StoreContext, worker: String)
        -> (any StoreReconciliation)?

    /// What sends the calls the store is owed after an apply (`StoreObligation.owed`), through the process's `pool`,
    /// trying a transient failure again as `retry` says; `nil` when the store is owed none. By default none.
    func obligationSender(pool: PostgresPool, retry: ObligationRetryPolicy, logger: Logger) -> (any ObligationSending)?

    /// The ids of the store's purchases and payers support may look a purchase up by, beside the ledger's own
    /// transaction and chain ids (`StoreSupportID`). By default none.
    var supportIDs: [StoreSupportID] { get }

    /// The app's secrets for the store in the catalog file (`stripe: {…}`); `nil` when the catalog gives it none
    /// there. By default none.
    var catalogSection: StoreCatalogSection? { get }

    /// The body and answer of the store's checkout route (`POST /v1/checkout/{store}`); `nil` when it offers no
    /// web checkout. By default none.
    var checkoutForm: WebCheckoutForm? { get }

    /// The web purchase the store offers an account (an order, then the store's hosted checkout); `nil` when none.
    func webCheckout(orders: Orders, externalPurchases: ExternalPurchaseStore) -> (any WebCheckout)?

    /// How the store's existing subscribers are read back for `subledger import`; `nil` when it has no such import.
    func subscriptionImport(logger: Logger) -> (any StoreSubscriptionImport)?

    /// The rows of `subledger import` the store reads back itself, through `context`; `nil` when none.
    func rowImport(_ context: StoreContext) -> (any StoreRowImport)?

    /// What support asks the store about purchases the ledger may not hold, through `context`; `nil` when the store
    /// is not asked.
    func purchaseLookup(_ context: StoreContext) -> (any StorePurchaseLookup)?

    /// The offer signatures the store's apps ask for; `nil` when the store signs none.
    func offerSigning(pool: PostgresPool, now: @escaping @Sendable () -> Instant) -> (any OfferSigning)?

    /// The claims of an app's own purchase the store verifies; `nil` when it has none.
    func appTransactionClaims(pool: PostgresPool, now: @escaping @Sendable () -> Instant)
        -> (any AppTransactionClaiming)?

    /// Starts what the store runs beside a serving process that writes through `context`, once, when it builds its
    /// routes (the App Store: receipts deferred while Apple failed are made due when it answers again).
    func prepareToServe(_ context: StoreContext)

    /// Makes the store's own metrics with every label set known in advance, so a fresh process exports them at 0
    /// (`MetricDeclarations`); `poll` tells whether the process runs the renewal job and the reconciliations.
    func declareMetrics(poll: Bool)
}

extension StoreRegistration {
    public func obligationSender(pool: PostgresPool, retry: ObligationRetryPolicy, logger: Logger)
        -> (any ObligationSending)?
    { nil }
    public var supportIDs: [StoreSupportID] { [] }
    public var catalogSection: StoreCatalogSection? { nil }
    public var checkoutForm: WebCheckoutForm? { nil }
    public func webCheckout(orders: Orders, externalPurchases: ExternalPurchaseStore) -> (any WebCheckout)? { nil }
    public func subscriptionImport(logger: Logger) -> (any StoreSubscriptionImport)? { nil }
    public func rowImport(_ context: StoreContext) -> (any StoreRowImport)? { nil }
    public func purchaseLookup(_ context: StoreContext) -> (any StorePurchaseLookup)? { nil }
    public func offerSigning(pool: PostgresPool, now: @escaping @Sendable () -> Instant) -> (any OfferSigning)? { nil }
    public func appTransactionClaims(pool: PostgresPool, now: @escaping @Sendable () -> Instant)
        -> (any AppTransactionClaiming)?
    { nil }
    public func declareMetrics(poll: Bool) {}
    public func prepareToServe(_ context: StoreContext) {}
}

/// The route a store posts its pushes to.
public struct StorePushRoute: Sendable, Hashable {
    /// The route's path, as requested (`/v1/notifications/stripe`).
    public var path: String
    /// The request header that authenticates a push (`Stripe-Signature`); `nil` when the push is signed in its body.
    public var credentialHeader: String?
    /// Whether a successful push's response carries a consistency token. A store never reads one, so a push route
    /// that carried it would pay the WAL position's round trip for nothing: `false` unless a store reads it.
    public var carriesConsistencyToken: Bool
    /// The realm of the challenge a refused push is answered 401 with (`Paddle-Signature realm="Paddle
    /// notifications"`), for a store whose pushes are signed in `credentialHeader` with a secret the app shares with
    /// it (Stripe's, Paddle's): such routes are all served by the HTTP layer's one route for header-signed pushes.
    /// `nil` when the store's pushes are answered by a route of their own (the App Store's signed bodies, Google's
    /// OIDC tokens).
    public var challengeRealm: String?

    public init(
        path: String, credentialHeader: String?, challengeRealm: String? = nil, carriesConsistencyToken: Bool = false
    ) {
        self.path = path
        self.credentialHeader = credentialHeader
        self.challengeRealm = challengeRealm
        self.carriesConsistencyToken = carriesConsistencyToken
    }

    /// The push is signed in a header of the request with the app's shared secret, and answered by the HTTP layer's
    /// one route for such pushes.
    public var isSignedInHeader: Bool { credentialHeader != nil && challengeRealm != nil }
}

/// What a store's port writes through: the ledger, the catalog, the log and the clock of its process.
public struct StoreContext: Sendable {
    public var store: LedgerStore
    public var catalog: CatalogStore
    public var logger: Logger
    public var now: @Sendable () -> Instant
    /// The app of a bundle id that arrived unverified, `nil` when no app has it: the catalog's, read on every input,
    /// unless the process keeps its apps cached (`AppDirectory`).
    public var findApp: @Sendable (String) async throws -> StoredApp?

    public init(
        store: LedgerStore, catalog: CatalogStore, logger: Logger, now: @escaping @Sendable () -> Instant,
        findApp: (@Sendable (String) async throws -> StoredApp?)? = nil
    ) {
        self.store = store
        self.catalog = catalog
        self.logger = logger
        self.now = now
        self.findApp = findApp ?? { bundleID in try await catalog.app(bundleID: bundleID) }
    }
}

/// A store's existing subscription read back for `subledger import`.
public protocol StoreSubscriptionImport: Sendable {
    /// Subscription `id` of `app`, read from its store as the ledger's input of kind `import` with no submitter;
    /// `nil` when it was sold for another app. Throws the ingestion's refusal (`IngestionError`).
    func input(subscription id: String, app: StoredApp, observedAt: Instant) async throws -> LedgerInput?
    /// Whether `app` holds the store secrets its store's API is read with.
    func isConfigured(for app: StoredApp) -> Bool
}

/// Every store registered with this process, by store: built once at the composition root and asked by
/// everything else (`StorePorts`, `StoreGateways`, the reconciliations, the HTTP routes).
public struct StoreRegistry: Sendable {
    /// The registrations, one per store.
    public let registrations: [Store: any StoreRegistration]

    /// `registrations`, one per store (a later one for the same store replaces an earlier).
    public init(_ registrations: [any StoreRegistration] = []) {
        var byStore: [Store: any StoreRegistration] = [:]
        for registration in registrations { byStore[registration.store] = registration }
        self.registrations = byStore
    }

    /// The registration of `store`, when one is registered.
    public subscript(store: Store) -> (any StoreRegistration)? { registrations[store] }

    /// The registered stores, in `Store`'s order.
    public var stores: [Store] { Store.allCases.filter { registrations[$0] != nil } }

    /// Every registered store's import of its subscriptions, by store.
    public func subscriptionImports(logger: Logger) -> [Store: any StoreSubscriptionImport] {
        var imports: [Store: any StoreSubscriptionImport] = [:]
        for store in stores { imports[store] = registrations[store]?.subscriptionImport(logger: logger) }
        return imports
    }

    /// Every registered store's ids support may look purchases up by.
    public var supportIDs: [StoreSupportID] { stores.flatMap { registrations[$0]?.supportIDs ?? [] } }

    /// Every registered store's section of the catalog file.
    public var catalogSections: [StoreCatalogSection] { stores.compactMap { registrations[$0]?.catalogSection } }

    /// Every registered store's metrics, made at 0 (`StoreRegistration.declareMetrics`).
    public func declareMetrics(poll: Bool) {
        for store in stores { registrations[store]?.declareMetrics(poll: poll) }
    }

    /// The push routes whose successful responses carry no consistency token: every registered store's that does
    /// not take one.
    public var pushPathsWithoutConsistencyToken: Set<String> {
        var paths: Set<String> = []
        for store in stores {
            if let route = registrations[store]?.pushRoute, !route.carriesConsistencyToken { paths.insert(route.path) }
        }
        return paths
    }
}
