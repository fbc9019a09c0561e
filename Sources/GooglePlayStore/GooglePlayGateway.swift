import AsyncHTTPClient
import Foundation
import GooglePlay
import GooglePlayClients
import Logging
import SubLedgerCore
import SubLedgerStore
import SubLedgerUseCases

/// The way to the Google Play Developer API for each app: one client per service account key, whose access
/// token is exchanged once and cached until it is near its end (`GoogleAccessTokenProvider`).
public actor GooglePlayGateway {
    /// Where the Developer API is (Google's, or play-sim's) and how it is called.
    public struct Configuration: Sendable {
        public var developerAPI: GooglePlayDeveloperAPI.Configuration
        /// Where the keys of real-time developer notifications' push tokens are (Google's JWKS, or play-sim's).
        public var pushKeys: GooglePushKeySource.Configuration

        public init(
            developerAPI: GooglePlayDeveloperAPI.Configuration = .init(),
            pushKeys: GooglePushKeySource.Configuration = .init()
        ) {
            self.developerAPI = developerAPI
            self.pushKeys = pushKeys
        }
    }

    public nonisolated let configuration: Configuration
    /// The keys push tokens are verified with.
    public nonisolated let pushKeys: GooglePushKeySource
    private let httpClient: HTTPClient
    private let logger: Logger
    /// Clients by the key they were made with: a rotated key makes a new client.
    private var clients = StoreAPIClients<GooglePlayDeveloperAPI>()

    public init(httpClient: HTTPClient, configuration: Configuration = .init(), logger: Logger) {
        self.httpClient = httpClient
        self.configuration = configuration
        self.logger = logger
        self.pushKeys = GooglePushKeySource(
            httpClient: httpClient, configuration: configuration.pushKeys, logger: logger)
    }

    /// The Developer API client of `app`, or `app_misconfigured` when it has no usable service account key.
    public func client(for app: StoredApp) throws(IngestionError) -> (GooglePlayDeveloperAPI, packageName: String) {
        guard let packageName = app.definition.googlePlay?.packageName else {
            throw IngestionError(.appMisconfigured, "the app \(app.bundleID) is not listed on Google Play")
        }
        guard let keyJSON = app.googleServiceAccountKey else {
            throw IngestionError(
                .appMisconfigured, "the app \(app.bundleID) has no Google Play service account key in its catalog")
        }
        let client = try clients.client(for: keyJSON) { () throws(IngestionError) -> GooglePlayDeveloperAPI in
            let key: ServiceAccountKey
            do {
                key = try ServiceAccountKey(jsonData: Data(keyJSON.utf8))
            } catch {
                throw IngestionError(
                    .appMisconfigured, "the Google Play service account key of \(app.bundleID) is unusable: \(error)")
            }
            let tokens = GoogleAccessTokenProvider(httpClient: httpClient, key: key, logger: logger)
            return GooglePlayDeveloperAPI(
                httpClient: httpClient, configuration: configuration.developerAPI, tokens: tokens, logger: logger)
        }
        return (client, packageName)
    }
}
