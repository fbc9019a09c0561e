import AsyncHTTPClient
import BoundedHTTP
import Foundation
import Logging
import NIOHTTP1
import Paddle
import SubLedgerCore

/// A client of the Paddle Billing API (version 1), authorized by a seller's API key (`Authorization: Bearer`).
///
/// Every call is bounded in time and size (the one write, `createTransaction`, starts a checkout); Paddle's error
/// envelope becomes a `PaddleAPIError`, an answer that cannot be read a `.malformedResponse` naming the field. Reads
/// are retried on rate limits (429), Paddle's
/// failures (5xx), timeouts and failed connections with `RetryPolicy`'s backoff. Lists are read page by page with
/// Paddle's cursor (`after`), at most `maximumPages` pages per list.
public struct PaddleAPI: Sendable {
    public struct Configuration: Sendable {
        /// Paddle's two environments: live sellers, and the sandbox a seller tests in.
        public enum Environment: String, Sendable, Hashable {
            case production
            case sandbox

            /// `https://api.paddle.com` or `https://sandbox-api.paddle.com`.
            public var baseURL: String {
                switch self {
                case .production: PaddleAPI.Configuration.productionBaseURL
                case .sandbox: PaddleAPI.Configuration.sandboxBaseURL
                }
            }
        }

        public static let productionBaseURL = "https://api.paddle.com"
        public static let sandboxBaseURL = "https://sandbox-api.paddle.com"

        /// The base URL: the environment's, unless given (paddle-sim's in tests).
        public var baseURL: String
        /// Time allowed per request (each attempt). Default: 30 seconds.
        public var timeout: Duration
        /// The largest answer accepted. Default: 4 MiB.
        public var maximumResponseBytes: Int
        /// How failed calls are retried. Default: `RetryPolicy()`.
        public var retry: RetryPolicy
        /// The most pages one list read fetches. Default: 50 (10,000 entities at 200 a page).
        public var maximumPages: Int

        public init(
            environment: Environment = .production, baseURL: String? = nil, timeout: Duration = .seconds(30),
            maximumResponseBytes: Int = 4 * 1024 * 1024, retry: RetryPolicy = RetryPolicy(), maximumPages: Int = 50
        ) {
            let base = baseURL ?? environment.baseURL
            self.baseURL = base.hasSuffix("/") ? String(base.dropLast()) : base
            self.timeout = timeout
            self.maximumResponseBytes = max(1024, min(maximumResponseBytes, PaddleDecoding.maximumBodyBytes))
            self.retry = retry
            self.maximumPages = max(1, maximumPages)
        }
    }

    /// The API version SubLedger reads (the shapes of `Paddle`'s types), sent with every request.
    public static let apiVersion = "1"
    /// Paddle's largest page.
    public static let maximumPerPage = 200

    public let configuration: Configuration
    private let exchange: HTTPExchange
    private let apiKey: String
    private let random: @Sendable () -> Double
    private let sleep: @Sendable (Duration) async throws -> Void

    public init(
        httpClient: HTTPClient, apiKey: String, configuration: Configuration = Configuration(),
        logger: Logger = Logger(label: "subledger.paddle.api"),
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.configuration = configuration
        self.exchange = HTTPExchange(
            client: httpClient, logger: logger, maximumBytes: configuration.maximumResponseBytes)
        self.apiKey = apiKey
        self.random = random
        self.sleep = sleep
    }

    // MARK: Reads

    public func transaction(_ id: String) async throws(PaddleAPIError) -> PaddleTransaction {
        try await entity(PaddleTransaction.self, "/transactions/" + Self.checked(id))
    }

    /// A price of the catalog (`pri_…`): its product and billing cycle, which a checkout is checked against.
    public func price(_ id: String) async throws(PaddleAPIError) -> PaddlePrice {
        try await entity(PaddlePrice.self, "/prices/" + Self.checked(id))
    }

    public func subscription(_ id: String) async throws(PaddleAPIError) -> PaddleSubscription {
        try await entity(PaddleSubscription.self, "/subscriptions/" + Self.checked(id))
    }

    /// One page of subscriptions, oldest first: those `after` a subscription id (the first page without), at most
    /// `perPage` (1 to 200), of `customerID` and in `statuses` when given.
    public func subscriptions(
        after: String? = nil, perPage: Int = 50, customerID: String? = nil,
        statuses: [PaddleSubscription.Status] = []
    ) async throws(PaddleAPIError) -> PaddlePage<PaddleSubscription> {
        var query = try Self.pageQuery(after: after, perPage: perPage)
        if let customerID { query.append(("customer_id", try Self.checked(customerID))) }
        if !statuses.isEmpty { query.append(("status", try Self.list(statuses.map(\.rawValue)))) }
        return try await get(PaddlePage<PaddleSubscription>.self, "/subscriptions", query)
    }

    /// Every subscription of `customerID` (every one, without), oldest first.
    public func allSubscriptions(customerID: String? = nil) async throws(PaddleAPIError) -> [PaddleSubscription] {
        var query: [(String, String)] = []
        if let customerID { query.append(("customer_id", try Self.checked(customerID))) }
        return try await all(PaddleSubscription.self, "/subscriptions", query, id: \.id)
    }

    /// Every transaction of `subscriptionID`, oldest first: its checkout's and each renewal's.
    public func transactions(subscriptionID: String) async throws(PaddleAPIError) -> [PaddleTransaction] {
        try await all(
            PaddleTransaction.self, "/transactions", [("subscription_id", try Self.checked(subscriptionID))], id: \.id)
    }

    /// Every adjustment of `transactionID` (refunds, credits, chargebacks), oldest first.
    public func adjustments(transactionID: String) async throws(PaddleAPIError) -> [PaddleAdjustment] {
        try await all(
            PaddleAdjustment.self, "/adjustments", [("transaction_id", try Self.checked(transactionID))], id: \.id)
    }

    /// Every adjustment of any transaction of `subscriptionID`, oldest first.
    public func adjustments(subscriptionID: String) async throws(PaddleAPIError) -> [PaddleAdjustment] {
        try await all(
            PaddleAdjustment.self, "/adjustments", [("subscription_id", try Self.checked(subscriptionID))], id: \.id)
    }

    /// A transaction and its adjustments: what `PaddleTransactionReading.sale()` reads.
    public func reading(ofTransaction id: String) async throws(PaddleAPIError) -> PaddleTransactionReading {
        let transaction = try await transaction(id)
        return PaddleTransactionReading(transaction: transaction, adjustments: try await adjustments(transactionID: id))
    }

    /// One page of the events list, oldest first: the events `after` an event id (how a reader walks forward from its
    /// cursor; the oldest Paddle keeps without), at most `perPage` (1 to 200), of `eventTypes` when given. Each event
    /// comes with its JSON, or with why it could not be read: one event SubLedger cannot read does not stop the rest.
    public func events(after: String? = nil, perPage: Int = 50, eventTypes: [PaddleEventType] = [])
        async throws(PaddleAPIError) -> PaddleEventPage
    {
        var query = try Self.pageQuery(after: after, perPage: perPage)
        if !eventTypes.isEmpty { query.append(("event_type", try Self.list(eventTypes.map(\.rawValue)))) }
        let answer = try await getAnswer("/events", query)
        let page: PaddlePage<EventIDOnly>
        let bodies: [Data]
        do {
            page = try PaddleDecoding.decode(PaddlePage<EventIDOnly>.self, from: answer.body)
            let root = try JSONSerialization.jsonObject(with: answer.body) as? [String: Any]
            let objects = root?["data"] as? [Any] ?? []
            guard objects.count == page.data.count else { throw PaddleWireError(.malformedJSON, "data") }
            bodies = try objects.map { try JSONSerialization.data(withJSONObject: $0, options: [.sortedKeys]) }
        } catch {
            throw PaddleAPIError(
                .malformedResponse, httpStatus: answer.status, field: (error as? PaddleWireError)?.field)
        }
        let entries = bodies.map { body in
            PaddleEventPage.Entry(
                body: body,
                event: Result { () throws(PaddleWireError) in try PaddleDecoding.decode(PaddleEvent.self, from: body) })
        }
        let last = page.data.last?.eventID
        return PaddleEventPage(
            entries: entries, hasMore: page.hasMore && !page.data.isEmpty, nextAfter: page.nextAfter ?? last ?? after)
    }

    // MARK: Writes

    /// What `createTransaction` answers: the transaction made and the link its checkout is paid through.
    public struct CreatedTransaction: Sendable, Hashable {
        /// `txn_…`.
        public var id: String
        /// `ready` once it has a customer, `draft` before.
        public var status: String
        /// The checkout's link (`checkout.url`): the app's default payment link with `?_ptxn=<id>`; `nil` when the
        /// account has no default payment link set.
        public var checkoutURL: String?
    }

    /// Creates a transaction of one catalog price (`POST /transactions`) that Paddle's checkout collects: with
    /// `customData` (SubLedger's order and app) and, when known, the Paddle customer. Sent once: Paddle takes no
    /// idempotency key, so a failure is not retried (the order stays open and the app server may start again).
    public func createTransaction(
        priceID: String, quantity: Int = 1, customData: [(String, String)], customerID: String? = nil
    ) async throws(PaddleAPIError) -> CreatedTransaction {
        guard (1...100).contains(quantity) else { throw PaddleAPIError(.invalidRequest, detail: "quantity") }
        var body: [String: Any] = [
            "items": [["price_id": try Self.checked(priceID), "quantity": quantity]],
            "custom_data": Dictionary(customData, uniquingKeysWith: { _, last in last }),
        ]
        if let customerID { body["customer_id"] = try Self.checked(customerID) }
        let data: Data
        do {
            data = try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])
        } catch {
            throw PaddleAPIError(.invalidRequest, detail: "the transaction's body cannot be written")
        }
        let answer = try await sendOnce(url: configuration.baseURL + "/transactions", method: .POST, body: data)
        struct Created: Decodable {
            struct Entity: Decodable {
                struct Checkout: Decodable { var url: String? }
                var id: String
                var status: String
                var checkout: Checkout?
            }
            var data: Entity
        }
        guard let created = try? JSONDecoder().decode(Created.self, from: answer.body),
            (try? Self.checked(created.data.id)) != nil, created.data.status.utf8.count <= 32
        else { throw PaddleAPIError(.malformedResponse, httpStatus: answer.status, field: "data") }
        let url = created.data.checkout?.url.flatMap { $0.utf8.count <= 2048 && !$0.contains("\0") ? $0 : nil }
        return CreatedTransaction(id: created.data.id, status: created.data.status, checkoutURL: url)
    }

    // MARK: Plumbing

    /// `id` when it is usable in a path or a query: 1 to 64 characters of `A-Z a-z 0-9 _`.
    static func checked(_ id: String) throws(PaddleAPIError) -> String {
        guard (1...64).contains(id.utf8.count),
            id.utf8.allSatisfy({
                (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || $0 == 0x5F
            })
        else { throw PaddleAPIError(.invalidRequest, detail: "not a Paddle id") }
        return id
    }

    /// Values of a filter, comma-separated, each as safe as an id (`.` allowed, for event types).
    static func list(_ values: [String]) throws(PaddleAPIError) -> String {
        guard (1...50).contains(values.count) else { throw PaddleAPIError(.invalidRequest, detail: "too many values") }
        for value in values {
            guard (1...128).contains(value.utf8.count),
                value.utf8.allSatisfy({
                    (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0)
                        || $0 == 0x5F || $0 == 0x2E
                })
            else { throw PaddleAPIError(.invalidRequest, detail: "not a filter value") }
        }
        return values.joined(separator: ",")
    }

    static func pageQuery(after: String?, perPage: Int) throws(PaddleAPIError) -> [(String, String)] {
        var query = [("per_page", String(max(1, min(perPage, maximumPerPage))))]
        if let after { query.append(("after", try checked(after))) }
        return query
    }

    /// Every page of a list, following `after` until Paddle says there is no more (or `maximumPages`).
    private func all<Element: Decodable & Sendable>(
        _ type: Element.Type, _ path: String, _ query: [(String, String)], id: (Element) -> String
    ) async throws(PaddleAPIError) -> [Element] {
        var items: [Element] = []
        var after: String?
        for _ in 0..<configuration.maximumPages {
            let page = try await get(
                PaddlePage<Element>.self, path,
                try Self.pageQuery(after: after, perPage: Self.maximumPerPage) + query)
            items += page.data
            guard page.hasMore, let next = page.nextAfter ?? page.data.last.map(id), next != after else { break }
            after = next
        }
        return items
    }

    /// One entity: Paddle answers `{"data": <entity>, "meta": {…}}`.
    private func entity<Entity: Decodable & Sendable>(_ type: Entity.Type, _ path: String)
        async throws(PaddleAPIError) -> Entity
    {
        try await get(Envelope<Entity>.self, path, []).data
    }

    private func get<Response: Decodable>(_ type: Response.Type, _ path: String, _ query: [(String, String)])
        async throws(PaddleAPIError) -> Response
    {
        let answer = try await getAnswer(path, query)
        do throws(PaddleWireError) {
            return try PaddleDecoding.decode(Response.self, from: answer.body)
        } catch {
            exchange.logger.debug(
                "Paddle API answer not read", metadata: ["path": "\(path)", "failure": "\(error)"])
            throw PaddleAPIError(.malformedResponse, httpStatus: answer.status, field: error.field)
        }
    }

    private func getAnswer(_ path: String, _ query: [(String, String)]) async throws(PaddleAPIError)
        -> HTTPExchange.Answer
    {
        var url = configuration.baseURL + path
        if !query.isEmpty { url += "?" + query.map { Self.escape($0) + "=" + Self.escape($1) }.joined(separator: "&") }
        var attempt = 0
        while true {
            do throws(PaddleAPIError) {
                return try await sendOnce(url: url)
            } catch {
                attempt += 1
                guard error.isRetryable, attempt < configuration.retry.maximumAttempts else { throw error }
                let delay = configuration.retry.delay(
                    afterAttempt: attempt - 1, random: random(), retryAfterSeconds: error.retryAfterSeconds)
                do {
                    try await sleep(delay)
                } catch {
                    throw PaddleAPIError(error is CancellationError ? .timeout : .connectionError)
                }
            }
        }
    }

    private func sendOnce(url: String, method: HTTPMethod = .GET, body: Data? = nil) async throws(PaddleAPIError)
        -> HTTPExchange.Answer
    {
        let headers = [
            ("Authorization", "Bearer " + apiKey), ("Paddle-Version", Self.apiVersion),
            ("Accept", "application/json"), ("User-Agent", "SubLedger"),
        ]
        let answer: HTTPExchange.Answer
        do {
            answer = try await exchange.perform(
                method, url: url, headers: headers, body: body, timeout: configuration.timeout)
        } catch {
            exchange.logger.debug("Paddle API request failed", metadata: ["failure": "\(error)"])
            throw PaddleAPIError(error == .timeout ? .timeout : .connectionError)
        }
        guard (200..<300).contains(answer.status) else {
            throw PaddleAPIError.api(
                status: answer.status, body: try? JSONDecoder().decode(PaddleErrorBody.self, from: answer.body),
                retryAfterSeconds: answer.headers.first(name: "Retry-After").flatMap {
                    Int64($0.trimmingCharacters(in: .whitespaces))
                })
        }
        return answer
    }

    private static let unreserved: CharacterSet = {
        var allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        allowed.insert(charactersIn: "-._~")
        return allowed
    }()

    private static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }
}

/// One page of the events list: each event with its JSON, oldest first, and where the next page starts.
public struct PaddleEventPage: Sendable {
    /// One event of the page: its JSON (keys sorted), and the event read from it or why it could not be.
    public struct Entry: Sendable {
        public var body: Data
        public var event: Result<PaddleEvent, PaddleWireError>
    }

    public var entries: [Entry]
    /// Whether more events follow `nextAfter` now.
    public var hasMore: Bool
    /// The cursor to read on from: the last event of this page (the one given when the page was empty).
    public var nextAfter: String?

    /// The events that could be read.
    public var events: [PaddleEvent] { entries.compactMap { try? $0.event.get() } }
}

/// `{"data": …}`: how Paddle wraps one entity.
struct Envelope<Entity: Decodable & Sendable>: Decodable, Sendable {
    var data: Entity
}

/// An event of a page as far as the page needs it: its id, read leniently (the event itself is read on its own).
struct EventIDOnly: Decodable, Sendable {
    var eventID: String?

    enum CodingKeys: String, CodingKey {
        case eventID = "event_id"
    }

    init(from decoder: any Decoder) throws {
        let container = try? decoder.container(keyedBy: CodingKeys.self)
        eventID = (try? container?.decodeIfPresent(String.self, forKey: .eventID)).flatMap { $0 }
    }
}
