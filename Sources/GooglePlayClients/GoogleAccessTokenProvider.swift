import AsyncHTTPClient
import BoundedHTTP
import Foundation
import GooglePlay
import Logging
import SubLedgerCore

/// OAuth2 access tokens for one service account: the signed JWT assertion exchanged at the key's `token_uri`
/// (the JWT-bearer grant), cached until `refreshMargin` before it expires.
///
/// Concurrent callers share one exchange: while one is under way every caller awaits it, so a burst of calls
/// after expiry costs Google one token request. `invalidate(_:)` drops a token the API refused (401) so the next
/// caller exchanges again. Expiry is judged against the injected `now`, never the system clock.
public actor GoogleAccessTokenProvider {
    /// How tokens are fetched and kept.
    public struct Configuration: Sendable {
        /// The scope asked for. Default: the Android Publisher scope.
        public var scope: String
        /// How long before its expiry a cached token is replaced. Default: 5 minutes (halved, at most, for a
        /// token that lives less than twice that).
        public var refreshMargin: Duration
        /// Time allowed per exchange. Default: 30 seconds.
        public var timeout: Duration
        /// The largest answer accepted from the token endpoint. Default: 64 KiB.
        public var maximumResponseBytes: Int

        /// Creates a configuration.
        public init(
            scope: String = ServiceAccountKey.androidPublisherScope, refreshMargin: Duration = .seconds(300),
            timeout: Duration = .seconds(30), maximumResponseBytes: Int = 64 * 1024
        ) {
            self.scope = scope
            self.refreshMargin = max(.zero, refreshMargin)
            self.timeout = timeout
            self.maximumResponseBytes = maximumResponseBytes
        }
    }

    /// A token and the moment from which it is no longer used.
    struct CachedToken: Sendable, Hashable {
        var accessToken: String
        var refreshAt: Instant
    }

    /// The configuration this provider was made with.
    public nonisolated let configuration: Configuration
    private let exchanger: Exchanger
    private let now: @Sendable () -> Instant
    private var cached: CachedToken?
    private var inFlight: Task<Result<CachedToken, GooglePlayAPIError>, Never>?

    /// Creates a provider for `key`; nothing is fetched until a token is asked for.
    public init(
        httpClient: HTTPClient,
        key: ServiceAccountKey,
        configuration: Configuration = Configuration(),
        logger: Logger = Logger(label: "subledger.googleplay.oauth"),
        now: @escaping @Sendable () -> Instant = { Instant.systemNow() }
    ) {
        self.configuration = configuration
        self.exchanger = Exchanger(
            exchange: HTTPExchange(
                client: httpClient, logger: logger, maximumBytes: configuration.maximumResponseBytes),
            key: key, configuration: configuration)
        self.now = now
    }

    /// A valid access token: the cached one while it is fresh, else a new one (one exchange for all callers).
    public func accessToken() async throws(GooglePlayAPIError) -> String {
        if let cached, now() < cached.refreshAt { return cached.accessToken }
        let task: Task<Result<CachedToken, GooglePlayAPIError>, Never>
        if let inFlight {
            task = inFlight
        } else {
            let (exchanger, requestedAt) = (exchanger, now())
            task = Task { await exchanger.exchange(requestedAt: requestedAt) }
            inFlight = task
        }
        let result = await task.value
        // Only the first awaiter to resume after the exchange settles the state; later ones find it settled.
        if inFlight == task {
            inFlight = nil
            if case .success(let token) = result { cached = token }
        }
        return try result.get().accessToken
    }

    /// Forgets `accessToken` if it is the cached one (the API refused it), so the next caller exchanges again.
    public func invalidate(_ accessToken: String) {
        if cached?.accessToken == accessToken { cached = nil }
    }

    /// One exchange at the token endpoint, off the actor.
    struct Exchanger: Sendable {
        let exchange: HTTPExchange
        let key: ServiceAccountKey
        let configuration: Configuration

        /// The longest access token accepted (Google's are a few hundred bytes).
        static let maximumTokenBytes = 8 * 1024

        func exchange(requestedAt: Instant) async -> Result<CachedToken, GooglePlayAPIError> {
            do throws(GooglePlayAPIError) {
                return .success(try await perform(requestedAt: requestedAt))
            } catch {
                return .failure(error)
            }
        }

        private func perform(requestedAt: Instant) async throws(GooglePlayAPIError) -> CachedToken {
            let assertion: String
            do {
                assertion = try key.assertion(now: requestedAt, scope: configuration.scope)
            } catch {
                throw GooglePlayAPIError(.invalidRequest, message: "the assertion could not be signed")
            }
            let answer: HTTPExchange.Answer
            do {
                answer = try await exchange.perform(
                    .POST, url: key.tokenURI, headers: [("Accept", "application/json"), ("User-Agent", "SubLedger")],
                    body: Data(OAuthTokenExchange.formBody(assertion: assertion).utf8),
                    contentType: "application/x-www-form-urlencoded", timeout: configuration.timeout)
            } catch {
                exchange.logger.debug("OAuth2 token exchange failed", metadata: ["failure": "\(error)"])
                throw GooglePlayAPIError(error == .timeout ? .timeout : .connectionError)
            }
            exchange.logger.debug("OAuth2 token endpoint answered", metadata: ["status": "\(answer.status)"])
            guard answer.status == 200 else { throw Self.refusal(status: answer.status, body: answer.body) }
            guard let token = try? JSONDecoder().decode(OAuthTokenResponse.self, from: answer.body),
                !token.accessToken.isEmpty, token.accessToken.utf8.count <= Self.maximumTokenBytes,
                token.tokenType.lowercased() == "bearer", token.expiresIn > 0, token.expiresIn <= 86_400
            else { throw GooglePlayAPIError(.malformedResponse, httpStatus: answer.status) }
            let lifetimeMilliseconds = token.expiresIn * 1000
            let marginMilliseconds = min(
                configuration.refreshMargin.components.seconds * 1000
                    + configuration.refreshMargin.components.attoseconds / 1_000_000_000_000_000,
                lifetimeMilliseconds / 2)
            return CachedToken(
                accessToken: token.accessToken,
                refreshAt: requestedAt.adding(milliseconds: lifetimeMilliseconds - marginMilliseconds))
        }

        /// The token endpoint's refusal as a typed error: `invalid_grant` apart, other OAuth2 errors together,
        /// 429 and 5xx retryable.
        static func refusal(status: Int, body: Data) -> GooglePlayAPIError {
            if status == 429 { return GooglePlayAPIError(.rateLimited, httpStatus: status) }
            if (500...599).contains(status) { return GooglePlayAPIError(.serverError, httpStatus: status) }
            guard let oauth = try? JSONDecoder().decode(OAuthErrorResponse.self, from: body) else {
                return GooglePlayAPIError(.tokenExchangeRefused, httpStatus: status)
            }
            return GooglePlayAPIError(
                oauth.error == "invalid_grant" ? .invalidGrant : .tokenExchangeRefused, httpStatus: status,
                message: oauth.errorDescription, oauthError: String(oauth.error.prefix(64)))
        }
    }
}
