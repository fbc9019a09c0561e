import AsyncHTTPClient
import BoundedHTTP
import Foundation
import NIOPosix
import Paddle
import PaddleClients
import PaddleSimulator
import SubLedgerCore
import Synchronization
import Testing

/// A paddle-sim in this process, a `PaddleAPI` pointed at it, and the seller's own writes (the catalog, transactions,
/// refunds) sent as Paddle's API takes them. Time is the simulator's manual clock; the webhook signing time is a
/// fixed wall clock, so nothing here reads the machine's time.
struct PaddleFixture: Sendable {
    static let apiKey = "pdl_sdbx_apikey_client_tests"
    static let secretKey = "pdl_ntfset_client_tests_secret"
    /// 2025-01-01T00:00:00Z: the simulated clock's start.
    static let start = Instant(millisecondsSince1970: 1_735_689_600_000)
    /// The wall time paddle-sim signs notifications at.
    static let wallClock = Instant(millisecondsSince1970: 1_764_201_600_000)

    let simulator: PaddleSimulator
    let http: HTTPClient
    let api: PaddleAPI
    let sleeps: RecordedSleeps

    /// Runs `body` with a fresh simulator and client (and `webhookURL` as its notification setting's destination),
    /// and always shuts them down.
    static func with<Result: Sendable>(
        webhookURL: String? = nil, retry: RetryPolicy = RetryPolicy(), _ body: (PaddleFixture) async throws -> Result
    ) async throws -> Result {
        let simulator = try await PaddleSimulator.start(
            .init(
                seed: 5, apiKey: apiKey, webhookURL: webhookURL, webhookSecretKey: secretKey,
                wallClock: { wallClock }))
        let http = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
        let sleeps = RecordedSleeps()
        let api = PaddleAPI(
            httpClient: http, apiKey: apiKey,
            configuration: .init(
                environment: .sandbox, baseURL: simulator.baseURL, timeout: .seconds(10), retry: retry),
            random: { 0.5 }, sleep: { sleeps.record($0) })
        let fixture = PaddleFixture(simulator: simulator, http: http, api: api, sleeps: sleeps)
        do {
            let result = try await body(fixture)
            try await fixture.close()
            return result
        } catch {
            try? await fixture.close()
            throw error
        }
    }

    func close() async throws {
        try await simulator.shutdown()
        try await http.shutdown()
    }

    // MARK: The seller's writes, as Paddle's API takes them

    /// POSTs `body` to paddle-sim's API and answers `data`; fails the test on a refusal.
    @discardableResult
    func post(_ path: String, _ body: [String: Any]) async throws -> [String: Any] {
        var request = HTTPClientRequest(url: simulator.baseURL + path)
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer \(Self.apiKey)")
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(try JSONSerialization.data(withJSONObject: body))
        let response = try await http.execute(request, timeout: .seconds(10))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        let json = try JSONSerialization.jsonObject(with: Data(buffer: bytes)) as? [String: Any] ?? [:]
        try #require((200..<300).contains(Int(response.status.code)), "\(path): \(json)")
        return try #require(json["data"] as? [String: Any])
    }

    /// A product with a monthly price of `amount` minor units of `currency`; answers the product and price ids.
    func monthlyPrice(amount: String = "1000", currency: String = "USD", trialDays: Int? = nil) async throws -> (
        product: String, price: String
    ) {
        let product = try await post("/products", ["name": "Notes Pro", "tax_category": "standard"])
        let productID = try #require(product["id"] as? String)
        var body: [String: Any] = [
            "product_id": productID, "description": "monthly",
            "unit_price": ["amount": amount, "currency_code": currency],
            "billing_cycle": ["interval": "month", "frequency": 1],
        ]
        if let trialDays { body["trial_period"] = ["interval": "day", "frequency": trialDays] }
        let price = try await post("/prices", body)
        return (productID, try #require(price["id"] as? String))
    }

    /// A customer who pays `price` at checkout, with SubLedger's order in `custom_data`; answers the checkout's
    /// transaction and subscription.
    func subscribe(price: String, email: String = "ada@example.com") async throws -> (
        transaction: String, subscription: String
    ) {
        let customer = try await post("/customers", ["email": email])
        let transaction = try await post(
            "/transactions",
            [
                "items": [["price_id": price, "quantity": 1]], "customer_id": try #require(customer["id"] as? String),
                "custom_data": ["subledger_order": "order-\(email)", "internal_ref": 42],
            ])
        let paid = try await simulator.control.completeCheckout(try #require(transaction["id"] as? String))
        return (paid.transaction, try #require(paid.subscription))
    }

    /// Asks for a refund of `transaction`: all of it, or `amount` (tax included) of its first line item.
    @discardableResult
    func refund(_ transaction: String, amount: String? = nil) async throws -> String {
        var body: [String: Any] = ["action": "refund", "reason": "asked", "transaction_id": transaction]
        if let amount {
            let raw = try await rawTransaction(transaction)
            let details = try #require(raw["details"] as? [String: Any])
            let lines = try #require(details["line_items"] as? [[String: Any]])
            let item = try #require(lines.first?["id"] as? String)
            body["type"] = "partial"
            body["items"] = [["item_id": item, "type": "partial", "amount": amount]]
        } else {
            body["type"] = "full"
        }
        return try #require(try await post("/adjustments", body)["id"] as? String)
    }

    /// A transaction as paddle-sim answers it, untyped: the line items the client does not read.
    func rawTransaction(_ id: String) async throws -> [String: Any] {
        var request = HTTPClientRequest(url: simulator.baseURL + "/transactions/" + id)
        request.headers.add(name: "Authorization", value: "Bearer \(Self.apiKey)")
        let response = try await http.execute(request, timeout: .seconds(10))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        let json = try JSONSerialization.jsonObject(with: Data(buffer: bytes)) as? [String: Any]
        return try #require(json?["data"] as? [String: Any])
    }

    /// The instant `days` after the simulated clock's start.
    static func day(_ days: Int64, seconds: Int64 = 0) -> Instant {
        start.adding(milliseconds: (days * 86_400 + seconds) * 1000)
    }
}

/// The waits the client asked for between attempts, instead of waiting.
final class RecordedSleeps: Sendable {
    private let waits = Mutex<[Duration]>([])

    func record(_ duration: Duration) { waits.withLock { $0.append(duration) } }
    var all: [Duration] { waits.withLock { $0 } }
}
