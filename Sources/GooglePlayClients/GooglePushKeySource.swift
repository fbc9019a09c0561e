import AsyncHTTPClient
import BoundedHTTP
import Foundation
import GooglePlay
import Logging
import SubLedgerCore

/// The keys Pub/Sub's push tokens are signed with (Google's JWKS at `https://www.googleapis.com/oauth2/v3/certs`,
/// or play-sim's), fetched on first use and kept for `maximumAge`; a token naming a key not in the set fetches the
/// set again (Google rotates its keys), at most once per `refetchInterval`, so forged key ids cannot make
/// SubLedger hammer the endpoint.
public actor GooglePushKeySource {
    /// Where the keys are and how long they are kept.
    public struct Configuration: Sendable {
        /// The JWKS document's URL.
        public var url: String
        /// How long a fetched set is used before it is fetched again. Default 1 hour.
        public var maximumAge: Duration
        /// The shortest time between two fetches caused by unknown key ids. Default 30 s.
        public var refetchInterval: Duration
        /// The fetch's time limit. Default 10 s.
        public var timeout: Duration

        public init(
            url: String = "https://www.googleapis.com/oauth2/v3/certs", maximumAge: Duration = .seconds(3_600),
            refetchInterval: Duration = .seconds(30), timeout: Duration = .seconds(10)
        ) {
            self.url = url
            self.maximumAge = maximumAge
            self.refetchInterval = refetchInterval
            self.timeout = timeout
        }
    }

    public nonisolated let configuration: Configuration
    private let exchange: HTTPExchange
    private let clock = ContinuousClock()
    private var cached: (keys: JSONWebKeySet, fetchedAt: ContinuousClock.Instant)?
    private var lastFetch: ContinuousClock.Instant?

    public init(httpClient: HTTPClient, configuration: Configuration = .init(), logger: Logger) {
        self.configuration = configuration
        self.exchange = HTTPExchange(
            client: httpClient, logger: logger, maximumBytes: JSONWebKeySet.maximumDocumentBytes)
    }

    /// The current key set; `keyID` not in the cached set fetches it again (rate-limited).
    public func keys(containing keyID: String?) async throws(GooglePlayAPIError) -> JSONWebKeySet {
        let now = clock.now
        if let cached, now - cached.fetchedAt < configuration.maximumAge {
            let known = keyID.map { cached.keys.keys[$0] != nil } ?? true
            let mayRefetch = lastFetch.map { now - $0 >= configuration.refetchInterval } ?? true
            if known || !mayRefetch { return cached.keys }
        }
        lastFetch = now
        let answer: HTTPExchange.Answer
        do {
            answer = try await exchange.perform(
                .GET, url: configuration.url, headers: [("Accept", "application/json"), ("User-Agent", "SubLedger")],
                timeout: configuration.timeout)
        } catch {
            if let cached { return cached.keys }
            throw GooglePlayAPIError(error == .timeout ? .timeout : .connectionError)
        }
        guard answer.status == 200 else {
            if let cached { return cached.keys }
            throw GooglePlayAPIError(
                (500...599).contains(answer.status) ? .serverError : .malformedResponse,
                httpStatus: answer.status)
        }
        let keys: JSONWebKeySet
        do {
            keys = try JSONWebKeySet(jsonData: answer.body)
        } catch {
            if let cached { return cached.keys }
            throw GooglePlayAPIError(.malformedResponse, httpStatus: answer.status)
        }
        cached = (keys, now)
        return keys
    }
}
