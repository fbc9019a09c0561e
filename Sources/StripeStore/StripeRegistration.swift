import AsyncHTTPClient
import Logging
import PostgresLibPQ
import StripeClients
import SubLedgerCore
import SubLedgerStore
import SubLedgerUseCases

/// Stripe as the rest of the server knows it: the one thing this module exports to the composition root. Its port
/// (webhooks and submitted Checkout Sessions read back from the API), its reconciliation (the events list), its push
/// route (`POST /v1/notifications/stripe`, signed in `Stripe-Signature`, with no consistency token), its web checkout
/// and its subscription import, all over one `StripeGateway` built with the process's Stripe configuration.
public struct StripeRegistration: StoreRegistration {
    /// The way to the Stripe API, shared by everything this registration builds.
    public let gateway: StripeGateway

    public init(gateway: StripeGateway) {
        self.gateway = gateway
    }

    /// Stripe's API where `configuration` says (Stripe's, or stripe-sim's; default Stripe's), called through
    /// `httpClient`.
    public init(
        configuration: StripeAPI.Configuration = .init(), httpClient: HTTPClient = .shared, logger: Logger
    ) {
        self.init(gateway: StripeGateway(httpClient: httpClient, configuration: configuration, logger: logger))
    }

    public var store: Store { .stripe }

    /// The header of Stripe's webhook signature.
    public static let signatureHeader = "Stripe-Signature"

    public var pushRoute: StorePushRoute? {
        StorePushRoute(
            path: "/v1/notifications/stripe", credentialHeader: Self.signatureHeader, challengeRealm: "Stripe webhooks")
    }

    public var catalogSection: StoreCatalogSection? { StripeSecrets.catalogSection }

    public func port(_ context: StoreContext) -> any StorePort {
        StripePort(
            store: context.store, gateway: gateway, catalog: context.catalog, logger: context.logger,
            now: context.now)
    }

    public func reconciliation(port: any StorePort, pool: PostgresPool, context: StoreContext, worker: String)
        -> (any StoreReconciliation)?
    {
        guard let port = port as? StripePort else { return nil }
        return StripeEventsReconciliation(
            configuration: .init(worker: worker), port: port, cursors: StoreEventCursors(pool: pool, store: .stripe),
            catalog: context.catalog)
    }

    /// `POST /v1/checkout/stripe`: the price, the pages to return to, a customer, a trial and the external purchase
    /// token of an iOS app's link-out; answered with the Checkout Session's id.
    public var checkoutForm: WebCheckoutForm? {
        WebCheckoutForm(
            required: [.price, .successURL],
            optional: [.cancelURL, .customer, .trialPeriodDays, .externalPurchaseToken],
            sessionField: "checkout_session_id")
    }

    public func webCheckout(orders: Orders, externalPurchases: ExternalPurchaseStore) -> (any WebCheckout)? {
        StripeCheckout(orders: orders, gateway: gateway, externalPurchases: externalPurchases)
    }

    public func subscriptionImport(logger: Logger) -> (any StoreSubscriptionImport)? {
        StripeSubscriptionImport(gateway: gateway, logger: logger)
    }
}

/// A Stripe subscription read back for `subledger import`: its invoices, payments, refunds and disputes.
struct StripeSubscriptionImport: StoreSubscriptionImport {
    let gateway: StripeGateway
    let logger: Logger

    func input(subscription id: String, app: StoredApp, observedAt: Instant) async throws -> LedgerInput? {
        let client = try await gateway.client(for: app)
        return try await StripeReadBack(client: client, logger: logger).input(
            subscription: id, kind: .import, app: app, observedAt: observedAt)
    }

    func isConfigured(for app: StoredApp) -> Bool { app.stripe != nil }
}
