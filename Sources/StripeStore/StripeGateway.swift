import AsyncHTTPClient
import Logging
import Stripe
import StripeClients
import SubLedgerCore
import SubLedgerStore
import SubLedgerUseCases

/// The way to the Stripe API for each app: one client per secret key (a rotated key makes a new one).
public actor StripeGateway {
    public nonisolated let configuration: StripeAPI.Configuration
    private let httpClient: HTTPClient
    private let logger: Logger
    private var clients = StoreAPIClients<StripeAPI>()

    public init(httpClient: HTTPClient, configuration: StripeAPI.Configuration = .init(), logger: Logger) {
        self.httpClient = httpClient
        self.configuration = configuration
        self.logger = logger
    }

    /// The API client of `app`, or `app_misconfigured` when the app has no Stripe secrets.
    public func client(for app: StoredApp) throws(IngestionError) -> StripeAPI {
        guard let secrets = app.stripe else {
            throw IngestionError(.appMisconfigured, "the app \(app.bundleID) has no stripe secrets in its catalog")
        }
        return clients.client(for: secrets.secretKey) {
            StripeAPI(
                httpClient: httpClient, secretKey: secrets.secretKey, configuration: configuration, logger: logger)
        }
    }
}

extension IngestionError {
    /// How long a client is asked to wait after Stripe failed.
    static let stripeRetryAfterSeconds = 30

    /// A failed Stripe call, as the ingestion refuses it: Stripe unavailable or busy (transient), the key refused
    /// (transient: an operator fixes the catalog), or an object Stripe does not have (final).
    init(_ error: StripeAPIError) {
        switch error.code {
        case .rateLimited, .serverError, .timeout, .connectionError, .malformedResponse:
            self.init(
                .stripeUnavailable, "Stripe did not answer (\(error.code.rawValue))",
                retryAfter: .seconds(Self.stripeRetryAfterSeconds))
        case .unauthorized:
            self.init(.stripeConfigurationError, "Stripe refused the app's secret key")
        case .notFound, .refused, .invalidRequest:
            self.init(.invalidPurchase, "Stripe has no such object (\(error.stripeCode ?? error.code.rawValue))")
        }
    }
}
