import AsyncHTTPClient
import BoundedHTTP
import Foundation
import GooglePlay
import Logging
import NIOHTTP1
import SubLedgerCore

/// A client of the Android Publisher API's purchase methods, authorized by a `GoogleAccessTokenProvider`.
///
/// Every call is bounded in time and size; Google's error body becomes a `GooglePlayAPIError`. Rate limits (429),
/// Google's failures (5xx) and failed connections are retried with `RetryPolicy`'s backoff (timeouts too, for
/// reads); a 401 drops the cached access token and tries once more with a new one.
public struct GooglePlayDeveloperAPI: Sendable {
    /// Where and how to call the API.
    public struct Configuration: Sendable {
        /// Google's base URL.
        public static let productionBaseURL = "https://androidpublisher.googleapis.com"

        /// The base URL (play-sim's `developerAPIBaseURL` in tests). Default: Google's.
        public var baseURL: String
        /// Time allowed per request (each attempt). Default: 30 seconds.
        public var timeout: Duration
        /// The largest answer accepted. Default: 4 MiB.
        public var maximumResponseBytes: Int
        /// How failed calls are retried. Default: `RetryPolicy()` (4 attempts, 0.5 s to 8 s).
        public var retry: RetryPolicy
        /// The most pages `allVoidedPurchases` fetches. Default: 1000.
        public var maximumPages: Int

        /// Creates a configuration.
        public init(
            baseURL: String = Self.productionBaseURL, timeout: Duration = .seconds(30),
            maximumResponseBytes: Int = 4 * 1024 * 1024, retry: RetryPolicy = RetryPolicy(), maximumPages: Int = 1000
        ) {
            self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
            self.timeout = timeout
            self.maximumResponseBytes = maximumResponseBytes
            self.retry = retry
            self.maximumPages = max(1, maximumPages)
        }
    }

    /// The configuration this client was made with.
    public let configuration: Configuration
    private let exchange: HTTPExchange
    private let tokens: GoogleAccessTokenProvider
    private let random: @Sendable () -> Double
    private let sleep: @Sendable (Duration) async throws -> Void

    /// Creates a client. `random` draws the backoff's jitter in `[0, 1)` and `sleep` waits between attempts;
    /// tests inject both.
    public init(
        httpClient: HTTPClient,
        configuration: Configuration = Configuration(),
        tokens: GoogleAccessTokenProvider,
        logger: Logger = Logger(label: "subledger.googleplay.developer-api"),
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.configuration = configuration
        self.exchange = HTTPExchange(
            client: httpClient, logger: logger, maximumBytes: configuration.maximumResponseBytes)
        self.tokens = tokens
        self.random = random
        self.sleep = sleep
    }

    // MARK: Subscriptions

    /// `purchases.subscriptionsv2.get`: the subscription purchase `token` names.
    public func subscriptionV2(packageName: String, token: String) async throws(GooglePlayAPIError)
        -> SubscriptionPurchaseV2
    {
        try Self.check(packageName, token)
        return try await decode(
            SubscriptionPurchaseV2.self, .getSubscriptionV2(packageName: packageName, token: token))
    }

    /// `purchases.subscriptions.acknowledge`: acknowledges a subscription purchase (within three days of it, or
    /// Google refunds it).
    public func acknowledgeSubscription(
        packageName: String, subscriptionId: String, token: String, developerPayload: String? = nil
    ) async throws(GooglePlayAPIError) {
        try Self.check(packageName, subscriptionId, token)
        _ = try await send(
            .acknowledgeSubscription(packageName: packageName, subscriptionId: subscriptionId, token: token),
            body: try Self.encode(AcknowledgeRequest(developerPayload: developerPayload)))
    }

    /// `purchases.subscriptionsv2.revoke`: ends the subscription now and refunds as `context` says.
    public func revokeSubscription(packageName: String, token: String, context: RevocationContext)
        async throws(GooglePlayAPIError)
    {
        try Self.check(packageName, token)
        _ = try await send(
            .revokeSubscriptionV2(packageName: packageName, token: token),
            body: try Self.encode(RevokeSubscriptionPurchaseRequest(revocationContext: context)))
    }

    /// `purchases.subscriptionsv2.cancel`: stops the subscription renewing; it stays active until it expires.
    public func cancelSubscription(packageName: String, token: String, cancellationType: CancellationType? = nil)
        async throws(GooglePlayAPIError)
    {
        try Self.check(packageName, token)
        _ = try await send(
            .cancelSubscriptionV2(packageName: packageName, token: token),
            body: try Self.encode(
                CancelSubscriptionPurchaseRequest(
                    cancellationContext: cancellationType.map { CancellationContext(cancellationType: $0) })))
    }

    // MARK: One-time products

    /// `purchases.productsv2.getproductpurchasev2`: the one-time purchase `token` names.
    public func productV2(packageName: String, token: String) async throws(GooglePlayAPIError) -> ProductPurchaseV2 {
        try Self.check(packageName, token)
        return try await decode(ProductPurchaseV2.self, .getProductV2(packageName: packageName, token: token))
    }

    /// `purchases.products.get`: the one-time purchase of `productId` that `token` names (the v1 resource).
    public func product(packageName: String, productId: String, token: String) async throws(GooglePlayAPIError)
        -> ProductPurchase
    {
        try Self.check(packageName, productId, token)
        return try await decode(
            ProductPurchase.self, .getProduct(packageName: packageName, productId: productId, token: token))
    }

    /// `purchases.products.acknowledge`.
    public func acknowledgeProduct(
        packageName: String, productId: String, token: String, developerPayload: String? = nil
    ) async throws(GooglePlayAPIError) {
        try Self.check(packageName, productId, token)
        _ = try await send(
            .acknowledgeProduct(packageName: packageName, productId: productId, token: token),
            body: try Self.encode(AcknowledgeRequest(developerPayload: developerPayload)))
    }

    /// `purchases.products.consume`: consumes (and so acknowledges) a consumable's purchase. Retried after a
    /// failure Google reported, a retry of a consume that did apply is refused as already consumed
    /// (`invalidArgument`).
    public func consumeProduct(packageName: String, productId: String, token: String) async throws(GooglePlayAPIError) {
        try Self.check(packageName, productId, token)
        _ = try await send(.consumeProduct(packageName: packageName, productId: productId, token: token), body: nil)
    }

    // MARK: Voided purchases

    /// Which voided purchases `voidedPurchases` lists.
    public struct VoidedPurchasesQuery: Sendable, Hashable {
        /// Voided at or after this moment (Google keeps 30 days). Default: Google's default (30 days ago).
        public var startTime: Instant?
        /// Voided at or before this moment. Default: now, at Google.
        public var endTime: Instant?
        /// Subscriptions too (Google's `type` 1), not only one-time products (`type` 0). Default: true.
        public var includeSubscriptions: Bool
        /// Quantity-based partial refunds too. Default: false (Google's default).
        public var includeQuantityBasedPartialRefund: Bool
        /// Per page, 1 to 1000. Default: Google's (1000).
        public var maxResults: Int?

        /// Creates a query.
        public init(
            startTime: Instant? = nil, endTime: Instant? = nil, includeSubscriptions: Bool = true,
            includeQuantityBasedPartialRefund: Bool = false, maxResults: Int? = nil
        ) {
            self.startTime = startTime
            self.endTime = endTime
            self.includeSubscriptions = includeSubscriptions
            self.includeQuantityBasedPartialRefund = includeQuantityBasedPartialRefund
            self.maxResults = maxResults
        }

        var queryItems: [(String, String)] {
            var items: [(String, String)] = [("type", includeSubscriptions ? "1" : "0")]
            if let startTime { items.append(("startTime", String(startTime.millisecondsSince1970))) }
            if let endTime { items.append(("endTime", String(endTime.millisecondsSince1970))) }
            if includeQuantityBasedPartialRefund { items.append(("includeQuantityBasedPartialRefund", "true")) }
            if let maxResults { items.append(("maxResults", String(maxResults))) }
            return items
        }
    }

    /// `purchases.voidedpurchases.list`: one page; pass the previous page's `tokenPagination.nextPageToken` as
    /// `pageToken` for the next.
    public func voidedPurchases(
        packageName: String, query: VoidedPurchasesQuery = VoidedPurchasesQuery(), pageToken: String? = nil
    ) async throws(GooglePlayAPIError) -> VoidedPurchasesListResponse {
        try Self.check(packageName)
        var items = query.queryItems
        if let pageToken { items.append(("token", pageToken)) }
        return try await decode(
            VoidedPurchasesListResponse.self, .listVoidedPurchases(packageName: packageName), query: items)
    }

    /// Every page of `voidedPurchases`, following `nextPageToken` (at most `maximumPages` pages).
    public func allVoidedPurchases(packageName: String, query: VoidedPurchasesQuery = VoidedPurchasesQuery())
        async throws(GooglePlayAPIError) -> [VoidedPurchase]
    {
        var all: [VoidedPurchase] = []
        var pageToken: String?
        for _ in 0..<configuration.maximumPages {
            let page = try await voidedPurchases(packageName: packageName, query: query, pageToken: pageToken)
            all += page.voidedPurchases ?? []
            // A page that names itself as the next would loop forever.
            guard let next = page.tokenPagination?.nextPageToken, !next.isEmpty, next != pageToken else { break }
            pageToken = next
        }
        return all
    }

    // MARK: Orders

    /// The most order ids `orders.batchGet` takes in one request.
    public static let maximumOrdersPerBatch = 1000

    /// `orders.get`: the order `orderId` names.
    public func order(packageName: String, id orderId: String) async throws(GooglePlayAPIError) -> GooglePlayOrder {
        try Self.check(packageName, orderId)
        return try await decode(GooglePlayOrder.self, .getOrder(packageName: packageName, orderId: orderId))
    }

    /// `orders.batchGet`: the orders `ids` name (duplicates asked once), in requests of at most
    /// `maximumOrdersPerBatch` ids. Google refuses a whole request when any id in it is unknown or of another
    /// package (404), and so does this call.
    public func orders(packageName: String, ids: [String]) async throws(GooglePlayAPIError) -> [GooglePlayOrder] {
        var seen: Set<String> = []
        let distinct = ids.filter { seen.insert($0).inserted }
        guard !distinct.isEmpty else { return [] }
        try Self.check(packageName)
        for id in distinct { try Self.check(id) }
        var orders: [GooglePlayOrder] = []
        var start = 0
        while start < distinct.count {
            let chunk = distinct[start..<min(start + Self.maximumOrdersPerBatch, distinct.count)]
            let answer = try await decode(
                BatchGetOrdersResponse.self, .batchGetOrders(packageName: packageName),
                query: chunk.map { ("orderIds", $0) })
            orders += answer.orders ?? []
            start += chunk.count
        }
        return orders
    }

    // MARK: Plumbing

    private static func check(_ arguments: String...) throws(GooglePlayAPIError) {
        for argument in arguments where argument.isEmpty || argument == "." || argument == ".." {
            throw GooglePlayAPIError(.invalidRequest, message: "an empty or dot-segment argument")
        }
    }

    private static func encode(_ value: some Encodable) throws(GooglePlayAPIError) -> Data {
        do {
            return try JSONEncoder().encode(value)
        } catch {
            throw GooglePlayAPIError(.invalidRequest, message: "the request body could not be encoded")
        }
    }

    private func decode<Response: Decodable>(
        _ type: Response.Type, _ route: AndroidPublisherRoute, query: [(String, String)] = []
    ) async throws(GooglePlayAPIError) -> Response {
        let answer = try await send(route, query: query, body: nil)
        do {
            return try JSONDecoder().decode(Response.self, from: answer.body)
        } catch {
            throw GooglePlayAPIError(.malformedResponse, httpStatus: answer.status)
        }
    }

    /// Sends `route` until it succeeds, fails for good, or the policy's attempts run out.
    private func send(_ route: AndroidPublisherRoute, query: [(String, String)] = [], body: Data?)
        async throws(GooglePlayAPIError) -> HTTPExchange.Answer
    {
        let isRead = route.method == "GET"
        var refreshedAfterUnauthorized = false
        var attempt = 0
        while true {
            do throws(GooglePlayAPIError) {
                return try await sendOnce(route, query: query, body: body)
            } catch {
                if error.code == .unauthorized, !refreshedAfterUnauthorized {
                    // The token may have been revoked or expired early: one more try with a new one, not counted
                    // as an attempt.
                    refreshedAfterUnauthorized = true
                    continue
                }
                attempt += 1
                guard error.isRetryable, isRead || error.code != .timeout, attempt < configuration.retry.maximumAttempts
                else { throw error }
                let delay = configuration.retry.delay(
                    afterAttempt: attempt - 1, random: random(), retryAfterSeconds: error.retryAfterSeconds)
                exchange.logger.debug(
                    "Android Publisher API call retried",
                    metadata: ["code": "\(error.code)", "attempt": "\(attempt)", "delay": "\(delay)"])
                do {
                    try await sleep(delay)
                } catch {
                    // Cancelled while waiting: the last failure is the answer.
                    throw GooglePlayAPIError(error is CancellationError ? .timeout : .connectionError)
                }
            }
        }
    }

    private func sendOnce(_ route: AndroidPublisherRoute, query: [(String, String)], body: Data?)
        async throws(GooglePlayAPIError) -> HTTPExchange.Answer
    {
        let accessToken = try await tokens.accessToken()
        var url = configuration.baseURL + route.path
        if !query.isEmpty { url += "?" + Self.queryString(query) }
        let answer: HTTPExchange.Answer
        do {
            answer = try await exchange.perform(
                route.method == "GET" ? .GET : .POST, url: url,
                headers: [
                    ("Authorization", "Bearer " + accessToken), ("Accept", "application/json"),
                    ("User-Agent", "SubLedger"),
                ],
                body: body, timeout: configuration.timeout)
        } catch {
            exchange.logger.debug("Android Publisher API request failed", metadata: ["failure": "\(error)"])
            throw GooglePlayAPIError(error == .timeout ? .timeout : .connectionError)
        }
        exchange.logger.debug("Android Publisher API answered", metadata: ["status": "\(answer.status)"])
        guard (200..<300).contains(answer.status) else {
            if answer.status == 401 { await tokens.invalidate(accessToken) }
            throw GooglePlayAPIError.api(
                status: answer.status, body: try? JSONDecoder().decode(GoogleAPIErrorBody.self, from: answer.body),
                retryAfterSeconds: answer.headers.first(name: "Retry-After").flatMap {
                    Int64($0.trimmingCharacters(in: .whitespaces))
                })
        }
        return answer
    }

    private static func queryString(_ items: [(String, String)]) -> String {
        var allowed = CharacterSet.alphanumerics.intersection(
            CharacterSet(charactersIn: Unicode.Scalar(0)..<Unicode.Scalar(128)))
        allowed.insert(charactersIn: "-._~")
        return items.map { name, value in
            (name.addingPercentEncoding(withAllowedCharacters: allowed) ?? "") + "="
                + (value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")
        }.joined(separator: "&")
    }
}
