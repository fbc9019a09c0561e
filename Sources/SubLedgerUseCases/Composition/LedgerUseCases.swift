import Logging
import PostgresLibPQ
import SubLedgerCore
import SubLedgerStore

/// The use cases the service's routes answer requests with, and the one place the stores behind them are built:
/// from the pool, the secret keys, the stores' gateways and the clock. The HTTP edge is given these, never a store.
public struct LedgerUseCases: Sendable {
    /// The catalog's apps, cached (`CacheInvalidationService` drops the cache when the catalog changes).
    public let apps: AppDirectory
    /// The API keys, cached likewise.
    public let keys: APIKeys
    /// What admin and support keys did.
    public let audit: AuditLog
    /// The reads a replica may answer.
    public let reads: LedgerReads
    /// The entitlement read answered on the event loops.
    public let entitlementReads: EntitlementReads
    /// The read replicas' consistency tokens.
    public let consistencyTokens: ConsistencyTokens
    /// The schema's version, for readiness.
    public let schema: SchemaStatus
    /// Every store's port: what apps submit and stores push is verified and applied through these.
    public let stores: StorePorts
    /// What the stores' ports write through (the ledger, the cached apps, the log and the clock).
    public let storeContext: StoreContext
    public let orders: Orders
    /// Web purchases, by the store that offers them: an order and the store's checkout that carries it.
    public let webCheckouts: [Store: any WebCheckout]
    /// The claims of an app's own purchase, when a registered store verifies them (the App Store's).
    public let appTransactionClaims: (any AppTransactionClaiming)?
    public let erasures: AccountErasures
    public let consumption: ConsumptionRecords
    /// Offer signatures, when a registered store signs them (the App Store's).
    public let offerSignatures: (any OfferSigning)?
    public let grants: EntitlementGrants
    public let merges: AccountMerges
    /// Support lookups, uncached catalog reads included.
    public let support: SupportLookup
    public let webhooks: WebhookAdmin

    /// Builds every use case on `pool`. `secretKeys` open the catalog's and the webhooks' sealed secrets;
    /// `registry` holds every store the process speaks to; stored inputs are retried as `retry` says;
    /// `readReplicas` (nil: the primary answers every read) answer the reads `reads` routes.
    public init(
        pool: PostgresPool, migrator: Migrator, secretKeys: SecretKeyring, stores registry: StoreRegistry,
        retry: StoredInputRetry = StoredInputRetry(), readReplicas: ReadReplicas?, logger: Logger,
        now: @escaping @Sendable () -> Instant
    ) {
        var store = LedgerStore(pool: pool)
        store.retry = retry
        let catalog = CatalogStore(pool: pool, secretKeys: secretKeys)
        let apps = AppDirectory(catalog: catalog)
        self.apps = apps
        keys = APIKeys(store: APIKeyStore(pool: pool))
        audit = AuditLog(store: AuditLogStore(pool: pool))
        reads = LedgerReads(primary: store, replicas: readReplicas)
        entitlementReads = EntitlementReads(store: EntitlementReadStore(pool: pool))
        consistencyTokens = ConsistencyTokens(pool: pool)
        schema = SchemaStatus(pool: pool, migrator: migrator)
        let context = StoreContext(
            store: store, catalog: catalog, logger: logger, now: now,
            findApp: { bundleID in
                // Bundle ids arrive unverified (a V1 `bid`, a JWS's claims): one no app can have is unknown without
                // asking the database, which would refuse NUL or invalid text with an error instead of an answer.
                guard IdentifierRule.bundleID.accepts(bundleID) else { return nil }
                return try await apps.app(bundleID: bundleID)
            })
        storeContext = context
        stores = StorePorts(registry: registry, context: context)
        let orders = Orders(store: store)
        self.orders = orders
        let externalPurchases = ExternalPurchaseStore(pool: pool)
        var webCheckouts: [Store: any WebCheckout] = [:]
        for registered in registry.stores {
            webCheckouts[registered] = registry[registered]?.webCheckout(
                orders: orders, externalPurchases: externalPurchases)
        }
        self.webCheckouts = webCheckouts
        appTransactionClaims =
            registry.stores.lazy.compactMap { registry[$0]?.appTransactionClaims(pool: pool, now: now) }
            .first
        erasures = AccountErasures(store: AccountErasureStore(pool: pool), catalog: catalog, now: now)
        consumption = ConsumptionRecords(store: ConsumptionStore(pool: pool))
        offerSignatures = registry.stores.lazy.compactMap { registry[$0]?.offerSigning(pool: pool, now: now) }.first
        grants = EntitlementGrants(store: EntitlementGrantStore(pool: pool), catalog: catalog, now: now)
        merges = AccountMerges(store: AccountMergeStore(pool: pool), catalog: catalog, now: now)
        support = SupportLookup(registry: registry, context: context)
        webhooks = WebhookAdmin(store: WebhookEndpointStore(pool: pool, secretKeys: secretKeys))
    }
}
