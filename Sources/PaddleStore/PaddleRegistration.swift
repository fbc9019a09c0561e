import AsyncHTTPClient
import Logging
import Metrics
import PaddleClients
import PostgresLibPQ
import SubLedgerCore
import SubLedgerStore
import SubLedgerUseCases

/// Paddle as the rest of the server knows it: the one thing this module exports to the composition root. Its port
/// (notifications read back from the Paddle API), its reconciliation (the events list), its push route
/// (`POST /v1/notifications/paddle`, signed in `Paddle-Signature`, with no consistency token), its web checkout and
/// its subscription import, all over one `PaddleGateway` built with the process's Paddle configuration.
public struct PaddleRegistration: StoreRegistration {
    /// The way to the Paddle API, shared by everything this registration builds.
    public let gateway: PaddleGateway

    public init(gateway: PaddleGateway) {
        self.gateway = gateway
    }

    /// Paddle's API where `configuration` says (Paddle's, or paddle-sim's; default Paddle's live API), called through
    /// `httpClient`.
    public init(
        configuration: PaddleAPI.Configuration = .init(), httpClient: HTTPClient = .shared, logger: Logger
    ) {
        self.init(gateway: PaddleGateway(httpClient: httpClient, configuration: configuration, logger: logger))
    }

    public var store: Store { .paddle }

    /// The header of Paddle's notification signature.
    public static let signatureHeader = "Paddle-Signature"

    public var pushRoute: StorePushRoute? {
        StorePushRoute(
            path: "/v1/notifications/paddle", credentialHeader: Self.signatureHeader,
            challengeRealm: "Paddle notifications")
    }

    public var catalogSection: StoreCatalogSection? { PaddleSecrets.catalogSection }

    /// Support finds a purchase by its Paddle customer (`ctm_…`: every purchase of theirs) and by its transaction
    /// (`txn_…`); a subscription's `sub_…` is the chain's id, found as any transaction or chain id is.
    public static let supportIDs = [
        StoreSupportID(store: .paddle, prefix: "ctm_", kindName: "paddle_customer", names: .customer),
        StoreSupportID(store: .paddle, prefix: "txn_", kindName: "paddle_transaction", names: .chainOrTransaction),
    ]

    public var supportIDs: [StoreSupportID] { Self.supportIDs }

    public func port(_ context: StoreContext) -> any StorePort {
        PaddlePort(
            store: context.store, gateway: gateway, catalog: context.catalog, logger: context.logger,
            now: context.now)
    }

    public func reconciliation(port: any StorePort, pool: PostgresPool, context: StoreContext, worker: String)
        -> (any StoreReconciliation)?
    {
        guard let port = port as? PaddlePort else { return nil }
        return PaddleEventsReconciliation(
            configuration: .init(worker: worker), port: port, cursors: StoreEventCursors(pool: pool, store: .paddle),
            catalog: context.catalog)
    }

    /// `POST /v1/checkout/paddle`: the price and a customer; answered with the Paddle transaction's id.
    public var checkoutForm: WebCheckoutForm? {
        WebCheckoutForm(required: [.price], optional: [.customer], sessionField: "transaction_id")
    }

    public func webCheckout(orders: Orders, externalPurchases: ExternalPurchaseStore) -> (any WebCheckout)? {
        PaddleCheckout(orders: orders, gateway: gateway)
    }

    public func subscriptionImport(logger: Logger) -> (any StoreSubscriptionImport)? {
        PaddleSubscriptionImport(gateway: gateway, logger: logger)
    }

    /// The events list's reads, by outcome (`poll` only).
    public func declareMetrics(poll: Bool) {
        guard poll else { return }
        for outcome in ["ok", "failed"] {
            _ = Counter(label: "subledger_paddle_event_reads_total", dimensions: [("outcome", outcome)])
        }
    }
}

/// A Paddle subscription read back for `subledger import`: its transactions and their adjustments.
struct PaddleSubscriptionImport: StoreSubscriptionImport {
    let gateway: PaddleGateway
    let logger: Logger

    func input(subscription id: String, app: StoredApp, observedAt: Instant) async throws -> LedgerInput? {
        let client = try await gateway.client(for: app)
        return try await PaddleReadBack(
            client: client, environment: app.paddle?.environment ?? .production, logger: logger
        ).input(subscription: id, kind: .import, app: app, observedAt: observedAt)
    }

    func isConfigured(for app: StoredApp) -> Bool { app.paddle != nil }
}
