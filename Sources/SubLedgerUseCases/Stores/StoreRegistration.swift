import Logging
import PostgresLibPQ
import SubLedgerCore
import SubLedgerStore

/// What a store module gives the rest of the server, exported once by the module (`GooglePlayRegistration`,
/// `StripeRegistration`): its port, its reconciliation, what it is owed after an apply, its push route and how that
/// route is treated, and the capabilities it offers beyond the port (a web checkout, an import of existing
/// subscribers). Built once, with its configuration and the gateway
/// that configuration makes, at the composition root, which hands every registration to one `StoreRegistry`;
/// nothing else names a store module.
///
/// The App Store is still built inside the use cases (`AppStorePort`); it is not a registration yet.
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

    /// What sends the calls the store is owed after an apply (`StoreObligation.owed`), through the process's `pool`;
    /// `nil` when the store is owed none. By default none.
    func obligationSender(pool: PostgresPool, logger: Logger) -> (any ObligationSending)?

    /// The web purchase the store offers an account (an order, then the store's hosted checkout); `nil` when none.
    func webCheckout(orders: Orders, externalPurchases: ExternalPurchaseStore) -> (any WebCheckout)?

    /// How the store's existing subscribers are read back for `subledger import`; `nil` when it has no such import.
    func subscriptionImport(logger: Logger) -> (any StoreSubscriptionImport)?
}

extension StoreRegistration {
    public func obligationSender(pool: PostgresPool, logger: Logger) -> (any ObligationSending)? { nil }
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

    public init(path: String, credentialHeader: String?, carriesConsistencyToken: Bool = false) {
        self.path = path
        self.credentialHeader = credentialHeader
        self.carriesConsistencyToken = carriesConsistencyToken
    }
}

/// What a store's port writes through: the ledger, the catalog, the log and the clock of its process.
public struct StoreContext: Sendable {
    public var store: LedgerStore
    public var catalog: CatalogStore
    public var logger: Logger
    public var now: @Sendable () -> Instant

    public init(
        store: LedgerStore, catalog: CatalogStore, logger: Logger, now: @escaping @Sendable () -> Instant
    ) {
        self.store = store
        self.catalog = catalog
        self.logger = logger
        self.now = now
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

    /// The push routes whose successful responses carry no consistency token: the App Store's (not registered yet),
    /// and every registered store's that does not take one.
    public var pushPathsWithoutConsistencyToken: Set<String> {
        var paths = Self.unregisteredPushPaths
        for store in stores {
            if let route = registrations[store]?.pushRoute, !route.carriesConsistencyToken { paths.insert(route.path) }
        }
        return paths
    }

    /// The push route of the store still built inside the use cases.
    public static let unregisteredPushPaths: Set<String> = ["/v1/notifications/appstore"]
}
