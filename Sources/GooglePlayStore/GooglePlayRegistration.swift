import AsyncHTTPClient
import Logging
import PostgresLibPQ
import SubLedgerCore
import SubLedgerStore
import SubLedgerUseCases

/// Google Play as the rest of the server knows it: the one thing this module exports to the composition root. Its
/// port (purchase tokens and real-time developer notifications read back from the Developer API), its reconciliation
/// (the voided purchases list), its acknowledgements and consumptions (store obligations), its push route
/// (`POST /v1/notifications/google`, authenticated by the push's bearer token, with no consistency token) and its
/// purchase import, all over one `GooglePlayGateway` built with the process's Google Play configuration.
public struct GooglePlayRegistration: StoreRegistration {
    /// The way to the Developer API and the keys of the pushes' tokens, shared by everything this registration builds.
    public let gateway: GooglePlayGateway

    public init(gateway: GooglePlayGateway) {
        self.gateway = gateway
    }

    /// The Developer API where `configuration` says (Google's, or play-sim's; default Google's), called through
    /// `httpClient`.
    public init(
        configuration: GooglePlayGateway.Configuration = .init(), httpClient: HTTPClient = .shared, logger: Logger
    ) {
        self.init(gateway: GooglePlayGateway(httpClient: httpClient, configuration: configuration, logger: logger))
    }

    public var store: Store { .googlePlay }

    public var pushRoute: StorePushRoute? {
        StorePushRoute(path: "/v1/notifications/google", credentialHeader: "Authorization")
    }

    public func port(_ context: StoreContext) -> any StorePort {
        GooglePlayPort(
            ingestion: GooglePlayIngestion(
                store: context.store, gateway: gateway, logger: context.logger, now: context.now),
            catalog: context.catalog, logger: context.logger, now: context.now)
    }

    public func reconciliation(port: any StorePort, pool: PostgresPool, context: StoreContext, worker: String)
        -> (any StoreReconciliation)?
    {
        guard let port = port as? GooglePlayPort else { return nil }
        return GooglePlayVoidedPurchases(
            configuration: .init(worker: worker), ingestion: port.ingestion, store: GooglePlayRecords(pool: pool),
            catalog: context.catalog, gateway: gateway, logger: context.logger, now: context.now)
    }

    /// Acknowledgements and consumptions: Google refunds a purchase not acknowledged within three days.
    public func obligationSender(pool: PostgresPool, retry: ObligationRetryPolicy, logger: Logger)
        -> (any ObligationSending)?
    {
        GooglePlayObligationSender(gateway: gateway)
    }

    public func webCheckout(orders: Orders, externalPurchases: ExternalPurchaseStore) -> (any WebCheckout)? { nil }

    public func subscriptionImport(logger: Logger) -> (any StoreSubscriptionImport)? { nil }
}
