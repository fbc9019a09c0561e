import AsyncHTTPClient
import Logging
import PaddleClients
import SubLedgerCore
import SubLedgerStore
import SubLedgerUseCases

/// The way to the Paddle API for each app: one client per API key (a rotated key makes a new one), on the host of the
/// key's environment (`pdl_sdbx_` keys on Paddle's sandbox) unless another was configured.
public actor PaddleGateway {
    public nonisolated let configuration: PaddleAPI.Configuration
    private let httpClient: HTTPClient
    private let logger: Logger
    private var clients = StoreAPIClients<PaddleAPI>()

    public init(httpClient: HTTPClient, configuration: PaddleAPI.Configuration = .init(), logger: Logger) {
        self.httpClient = httpClient
        self.configuration = configuration
        self.logger = logger
    }

    /// The API client of `app`, or `app_misconfigured` when the app has no Paddle secrets.
    public func client(for app: StoredApp) throws(IngestionError) -> PaddleAPI {
        guard let secrets = app.paddle else {
            throw IngestionError(.appMisconfigured, "the app \(app.bundleID) has no paddle secrets in its catalog")
        }
        // Paddle's own hosts serve one environment each: a sandbox key is sent to the sandbox's unless another URL
        // (paddle-sim's) was configured.
        var configured = configuration
        if configured.baseURL == PaddleAPI.Configuration.productionBaseURL, secrets.environment == .sandbox {
            configured.baseURL = PaddleAPI.Configuration.sandboxBaseURL
        }
        return clients.client(for: secrets.apiKey) {
            PaddleAPI(httpClient: httpClient, apiKey: secrets.apiKey, configuration: configured, logger: logger)
        }
    }
}

extension IngestionError {
    /// How long a client is asked to wait after Paddle failed.
    static let paddleRetryAfterSeconds = 30

    /// A failed Paddle call, as the ingestion refuses it: Paddle unavailable or busy (transient), the key refused
    /// (transient: an operator fixes the catalog), or an object Paddle does not have (final).
    init(_ error: PaddleAPIError) {
        switch error.code {
        case .rateLimited, .serverError, .timeout, .connectionError, .malformedResponse:
            self.init(
                .storeUnavailable, "Paddle did not answer (\(error.code.rawValue))",
                retryAfter: .seconds(Self.paddleRetryAfterSeconds))
        case .unauthorized:
            self.init(.storeConfigurationError, "Paddle refused the app's API key")
        case .notFound, .refused, .invalidRequest:
            self.init(.invalidPurchase, "Paddle has no such object (\(error.paddleCode ?? error.code.rawValue))")
        }
    }
}
