import AppStoreStore
import AsyncHTTPClient
import CatalogFile
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import NIOHTTP1
import PaddleClients
import PaddleSimulator
import PaddleStore
import PostgresLibPQ
import SubLedgerCore
import SubLedgerHTTP
import SubLedgerStore
import SubLedgerTestSupport
import SubLedgerUseCases
import Testing

/// paddle-sim, PostgreSQL and a live server whose Paddle API is paddle-sim, on paddle-sim's clock: one app selling a
/// monthly subscription and a one-time purchase through Paddle, its notification setting posting to the server.
struct PaddleHarness: Sendable {
    static let bundleID = "com.example.paddle"
    static let apiKey = "pdl_sdbx_apikey_subledger_harness"
    static let secretKey = "pdl_ntfset_subledger_harness_secret"
    /// 2025-11-27T00:00:00Z.
    static let start = Instant(millisecondsSince1970: 1_764_201_600_000)

    let sim: PaddleSimulator
    let pool: PostgresPool
    let key: String
    let client: any TestClientProtocol
    let catalog: CatalogStore
    let gateway: PaddleGateway
    let port: PaddlePort
    /// The subscription's product and its monthly price (9.99 USD, tax added), the one-time product and its price.
    let monthly: (product: String, price: String)
    let lifetime: (product: String, price: String)
    /// The notification setting that posts to the server.
    let setting: String

    var now: Instant { sim.control.now }

    /// Starts a checkout for `account` through SubLedger; the transaction's id.
    func checkout(_ account: String, _ product: (product: String, price: String)) async throws -> String {
        let answer = try await client.call(
            .post, "/v1/checkout/paddle", key: key,
            json: ["account_id": account, "product_id": product.product, "price": product.price])
        #expect(answer.status == .created, "\(answer.json)")
        #expect(answer.json["order_id"] as? String != nil)
        return try #require(answer.json["transaction_id"] as? String)
    }

    /// A purchase by `account`: SubLedger's checkout, then the customer pays; the transaction and subscription.
    func buy(_ account: String, _ product: (product: String, price: String)? = nil, email: String? = nil)
        async throws -> (transaction: String, subscription: String?)
    {
        let transaction = try await checkout(account, product ?? monthly)
        let paid = try await sim.control.completeCheckout(transaction, email: email ?? "\(account)@example.com")
        return (paid.transaction, paid.subscription)
    }

    func entitlements(_ account: String) async throws -> [String] {
        let answer = try await client.call(.get, "/v1/accounts/\(account)/entitlements", key: key)
        let list = answer.json["entitlements"] as? [[String: Any]] ?? []
        return list.compactMap { $0["entitlement_id"] as? String }.sorted()
    }

    func owner(of chain: String) async throws -> String? {
        try await pool.query("SELECT owner_account_id FROM chains WHERE original_transaction_id = \(chain)")
            .first?.decode(String?.self, at: 0)
    }

    /// The chain's transactions as `id revoked`, oldest first.
    func transactions(of chain: String) async throws -> [String] {
        try await pool.query(
            """
            SELECT transaction_id || ' ' || (revocation_date IS NOT NULL)::text
            FROM transactions WHERE original_transaction_id = \(chain) ORDER BY purchase_date, transaction_id
            """
        ).map { try $0.decode(String.self, at: 0) }
    }

    func ledgerEntries() async throws -> Int64 {
        try await pool.query("SELECT count(*) FROM ledger_entries").single().decode(Int64.self, at: 0)
    }

    /// The stored Paddle events as `type status`, in arrival order.
    func storedEvents() async throws -> [String] {
        try await pool.query(
            """
            SELECT notification_type || ' ' || status FROM notifications
            WHERE version = 'paddle_event' ORDER BY notification_row_id
            """
        ).map { try $0.decode(String.self, at: 0) }
    }

    func advance(days: Int64 = 0, seconds: Int64 = 0) async {
        await sim.control.advance(seconds: days * 86_400 + seconds)
    }

    /// Turns the server's notification setting on or off (Paddle posts nothing to an inactive one).
    func setNotifications(active: Bool) async throws {
        _ = try await Self.paddle(sim, .PATCH, "/notification-settings/\(setting)", ["active": active])
    }

    /// Calls paddle-sim's API as the seller; answers `data`.
    @discardableResult
    static func paddle(_ sim: PaddleSimulator, _ method: HTTPMethod, _ path: String, _ body: [String: Any]? = nil)
        async throws -> Any
    {
        var request = HTTPClientRequest(url: sim.baseURL + path)
        request.method = method
        request.headers.add(name: "Authorization", value: "Bearer \(apiKey)")
        request.headers.add(name: "Content-Type", value: "application/json")
        if let body { request.body = .bytes(try JSONSerialization.data(withJSONObject: body)) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(20))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        let json = try JSONSerialization.jsonObject(with: Data(buffer: bytes)) as? [String: Any] ?? [:]
        try #require((200..<300).contains(Int(response.status.code)), "\(path): \(json)")
        return try #require(json["data"])
    }

    /// A product of paddle-sim's catalog with one price (`monthly`: a month's billing cycle).
    static func product(_ sim: PaddleSimulator, name: String, amount: String, monthly: Bool) async throws -> (
        product: String, price: String
    ) {
        let product = try #require(
            try await paddle(sim, .POST, "/products", ["name": name, "tax_category": "standard"]) as? [String: Any])
        let productID = try #require(product["id"] as? String)
        var body: [String: Any] = [
            "product_id": productID, "description": name, "unit_price": ["amount": amount, "currency_code": "USD"],
        ]
        if monthly { body["billing_cycle"] = ["interval": "month", "frequency": 1] }
        let price = try #require(try await paddle(sim, .POST, "/prices", body) as? [String: Any])
        return (productID, try #require(price["id"] as? String))
    }

    /// Runs `body` beside paddle-sim and a live server on its clock.
    /// paddle-sim pays out in `payoutCurrency` at `payoutRates` (millionths) when given one.
    static func run(
        payoutCurrency: String? = nil, payoutRates: [String: Int64] = [:],
        _ body: @Sendable (PaddleHarness) async throws -> Void
    ) async throws {
        let sim = try await PaddleSimulator.start(
            .init(
                seed: 11, startTime: start, apiKey: apiKey, webhookURL: "http://127.0.0.1:9/unused",
                webhookSecretKey: secretKey, payoutCurrency: payoutCurrency, payoutRates: payoutRates,
                deliveryTimeout: .seconds(60)))
        do {
            try await serve(sim, body)
        } catch {
            try? await sim.shutdown()
            throw error
        }
        try await sim.shutdown()
    }

    private static func serve(_ sim: PaddleSimulator, _ body: @Sendable (PaddleHarness) async throws -> Void)
        async throws
    {
        let monthly = try await product(sim, name: "Pro", amount: "999", monthly: true)
        let lifetime = try await product(sim, name: "Lifetime", amount: "4999", monthly: false)
        let settings = try #require(try await paddle(sim, .GET, "/notification-settings") as? [[String: Any]])
        let setting = try #require(settings.first?["id"] as? String)
        let catalogYAML = """
            apps:
              - bundle_id: \(bundleID)
                environments: [production, sandbox]
                paddle:
                  api_key: \(apiKey)
                  webhook_secret: \(secretKey)
                products:
                  - { product_id: \(monthly.product), type: auto_renewable, subscription_group_id: "web", entitlements: [pro], store: paddle }
                  - { product_id: \(lifetime.product), type: non_consumable, entitlements: [lifetime], store: paddle }
            """
        try await TestDatabase.withSchema(maxConnections: 8, template: .ledger) { _, _, pool in
            let migrator = try Migrator.bundled(logger: TestDatabase.logger)
            try await migrator.migrate(pool)
            let secretKeys = try SecretKeyring(keys: [SecretKey.generate()])
            let catalog = CatalogStore(pool: pool, secretKeys: secretKeys)
            let (definitions, secrets) = try CatalogFile.read(catalogYAML, sections: [PaddleSecrets.catalogSection])
            try await catalog.applyCatalog(definitions, secrets: secrets)
            let key = try await APIKeys(store: APIKeyStore(pool: pool)).create(bundleID: bundleID, name: "web").secret
            let gateway = PaddleGateway(
                httpClient: .shared,
                configuration: .init(
                    environment: .sandbox, baseURL: sim.baseURL, timeout: .seconds(10),
                    retry: .init(maximumAttempts: 2, initialDelay: .milliseconds(10))),
                logger: TestDatabase.logger)
            let now: @Sendable () -> Instant = { sim.control.now }
            var dependencies = ServiceDependencies(
                pool: pool, migrator: migrator, stores: StoreRegistry([PaddleRegistration(gateway: gateway)]), now: now)
            dependencies.retry = StoredInputRetry()
            var configuration = ServiceConfiguration(host: "127.0.0.1", port: 0)
            configuration.idleTimeout = .seconds(600)
            configuration.secretKeys = secretKeys
            let app = buildApplication(
                configuration: configuration, dependencies: dependencies, logger: TestDatabase.logger)
            let port = PaddlePort(
                store: LedgerStore(pool: pool), gateway: gateway, catalog: catalog, logger: TestDatabase.logger,
                now: now)
            try await app.test(.live) { client in
                let serverPort = try #require(client.port)
                try await paddle(
                    sim, .PATCH, "/notification-settings/\(setting)",
                    ["destination": "http://127.0.0.1:\(serverPort)/v1/notifications/paddle"])
                try await body(
                    PaddleHarness(
                        sim: sim, pool: pool, key: key, client: client, catalog: catalog, gateway: gateway, port: port,
                        monthly: monthly, lifetime: lifetime, setting: setting))
            }
        }
    }
}
