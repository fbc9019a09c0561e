import AppStoreSimulator
import AppStoreStore
import CatalogFile
import Foundation
import GooglePlaySimulator
import GooglePlayStore
import HummingbirdTesting
import NIOCore
import PostgresLibPQ
import StripeClients
import StripeSimulator
import StripeStore
import SubLedgerCore
import SubLedgerHTTP
import SubLedgerReports
import SubLedgerStore
import SubLedgerTestSupport
import SubLedgerUseCases
import Testing

/// One account subscribed to one entitlement in all three stores, each bought through its simulator (appstore-sim's
/// signed transaction, play-sim's purchase token, stripe-sim's Checkout paid and its webhooks) by a live server on
/// PostgreSQL: one entitlement answered, from the store whose subscription lasts longest, the webhook events of each
/// grant naming its store, and three sales in the revenue report, each with its store's commission (Apple's 30 % in
/// a first year, Google Play's 15 % on subscriptions, none on the web sale, which pays Stripe's fee instead).
@Suite struct ThreeStoresTests {
    static let bundleID = "com.example.web"
    static let packageName = "com.example.android"
    /// 2025-11-27T00:00:00Z: every simulator's clock, and the server's.
    static let start = Instant(millisecondsSince1970: 1_764_201_600_000)

    static let catalogYAML = """
        apps:
          - bundle_id: com.example.web
            apple_app_id: 1111111111
            environments: [production, sandbox]
            google_play:
              package_name: com.example.android
            stripe:
              secret_key: sk_test_three_stores
              webhook_secret: whsec_three_stores
            products:
              - { product_id: pro.monthly, type: auto_renewable, subscription_group_id: "ios", entitlements: [pro] }
              - { product_id: pro, type: auto_renewable, subscription_group_id: "play", entitlements: [pro], store: google_play }
              - { product_id: prod_webpro, type: auto_renewable, subscription_group_id: "web", entitlements: [pro], store: stripe }
        """

    struct Missing: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    struct Harness: Sendable {
        let apple: AppStoreSimulator
        let google: GooglePlaySimulator
        let stripe: StripeSimulator
        let pool: PostgresPool
        let key: String
        let client: any TestClientProtocol
    }

    /// The three simulators, PostgreSQL and a live server whose gateways reach them, on stripe-sim's clock (the
    /// other two simulators' clocks start at the same instant and are not advanced).
    static func run(_ body: @Sendable (Harness) async throws -> Void) async throws {
        let apple = try await ThreeStoresAppStore.start(at: start)
        let google = try await ThreeStoresGooglePlay.start(at: start)
        let stripe = try await StripeSimulator.start(
            .init(startTime: start, secretKey: "sk_test_three_stores", deliveryTimeout: .seconds(120)))
        do {
            try await TestDatabase.withSchema(maxConnections: 8, template: .ledger) { _, _, pool in
                let migrator = try Migrator.bundled(logger: TestDatabase.logger)
                try await migrator.migrate(pool)
                let secretKeys = try SecretKeyring(keys: [SecretKey.generate()])
                let catalog = CatalogStore(pool: pool, secretKeys: secretKeys)
                let (definitions, secrets) = try CatalogFile.read(
                    catalogYAML, sections: EveryStore.registry.catalogSections)
                var appSecrets = secrets[bundleID] ?? AppSecrets()
                appSecrets.stores[.googlePlay, GooglePlaySecrets.serviceAccountKeyName] =
                    try ThreeStoresGooglePlay.serviceAccountKey(of: google)
                try await catalog.applyCatalog(definitions, secrets: [bundleID: appSecrets])
                let key = try await APIKeys(store: APIKeyStore(pool: pool)).create(bundleID: bundleID, name: "app")
                    .secret
                let appleGateway = try AppleGateway(
                    configuration: AppleConfiguration(
                        verifyReceiptProductionURL: apple.productionVerifyReceiptURL,
                        verifyReceiptSandboxURL: apple.sandboxVerifyReceiptURL, trustAppleRoot: false,
                        timeout: .seconds(20), serverAPIProductionURL: apple.serverAPIBaseURL(.production),
                        serverAPISandboxURL: apple.serverAPIBaseURL(.sandbox)),
                    additionalRoots: [apple.trustedRoot], logger: TestDatabase.logger)
                let now: @Sendable () -> Instant = { stripe.control.now }
                var dependencies = ServiceDependencies(pool: pool, migrator: migrator, apple: appleGateway, now: now)
                dependencies.stores = StoreRegistry(
                    apple: appleGateway,
                    [
                        GooglePlayRegistration(
                            configuration: .init(
                                developerAPI: .init(baseURL: google.developerAPIBaseURL),
                                pushKeys: .init(url: google.jwksURL)),
                            logger: TestDatabase.logger),
                        StripeRegistration(
                            configuration: .init(
                                baseURL: stripe.baseURL, timeout: .seconds(10),
                                retry: .init(maximumAttempts: 2, initialDelay: .milliseconds(10))),
                            logger: TestDatabase.logger),
                    ])
                var configuration = ServiceConfiguration(host: "127.0.0.1", port: 0)
                configuration.idleTimeout = .seconds(600)
                configuration.secretKeys = secretKeys
                let app = buildApplication(
                    configuration: configuration, dependencies: dependencies, logger: TestDatabase.logger)
                try await app.test(.live) { client in
                    guard let port = client.port else { throw Missing("the server's port") }
                    stripe.control.addWebhookEndpoint(
                        url: "http://127.0.0.1:\(port)/v1/notifications/stripe", secret: "whsec_three_stores")
                    try await body(
                        Harness(apple: apple, google: google, stripe: stripe, pool: pool, key: key, client: client))
                }
            }
        } catch {
            try? await apple.shutdown()
            try? await google.shutdown()
            try? await stripe.shutdown()
            throw error
        }
        try await apple.shutdown()
        try await google.shutdown()
        try await stripe.shutdown()
    }

    @Test func oneAccountSubscribedInAllThreeStoresHoldsOneEntitlementAndThreeSales() async throws {
        try await Self.run { h in
            func entitlements() async throws -> [[String: Any]] {
                let answer = try await h.client.call(.get, "/v1/accounts/alice/entitlements", key: h.key)
                #expect(answer.status == .ok)
                return answer.json["entitlements"] as? [[String: Any]] ?? []
            }

            // The App Store: an order, then StoreKit 2's signed transaction with the order's token (a month).
            let order = try await h.client.call(
                .post, "/v1/orders", key: h.key, json: ["account_id": "alice", "product_id": "pro.monthly"])
            let token = try #require(order.json["app_account_token"] as? String)
            let signed = try await ThreeStoresAppStore.buy(on: h.apple, appAccountToken: token)
            let applied = try await h.client.call(
                .post, "/v1/transactions", key: h.key, json: ["account_id": "alice", "signed_transaction": signed])
            #expect(applied.status == .ok, "\(applied.json)")
            #expect(try await entitlements().first?["product_id"] as? String == "pro.monthly")

            // Google Play: a purchase token for the same account (a month).
            let play = try await ThreeStoresGooglePlay.buy(on: h.google, account: "alice")
            let submitted = try await h.client.call(
                .post, "/v1/purchases/google", key: h.key,
                json: [
                    "account_id": "alice", "package_name": Self.packageName, "product_id": "pro",
                    "purchase_token": play.token, "order_id": play.orderID,
                ])
            #expect(submitted.status == .ok, "\(submitted.json)")

            // Stripe: a yearly web subscription through SubLedger's checkout, paid on stripe-sim; its webhooks apply it.
            _ = try await h.stripe.control.createProduct(name: "Pro", id: "prod_webpro")
            let price = try await h.stripe.control.createPrice(
                product: "prod_webpro", unitAmount: 4_999, interval: "year")
            let checkout = try await h.client.call(
                .post, "/v1/checkout/stripe", key: h.key,
                raw: ByteBuffer(
                    bytes: try JSONSerialization.data(withJSONObject: [
                        "account_id": "alice", "product_id": "prod_webpro", "price": price,
                        "success_url": "https://example.com/paid?session={CHECKOUT_SESSION_ID}",
                    ])))
            #expect(checkout.status == .created, "\(checkout.json)")
            let session = try #require(checkout.json["checkout_session_id"] as? String)
            let subscription = try await h.stripe.control.completeCheckout(session)
            #expect(h.stripe.control.deliveries().allSatisfy { $0.delivered })

            // One entitlement, from the store whose subscription lasts longest: the web's year.
            let answered = try await entitlements()
            #expect(answered.count == 1)
            #expect(answered.first?["entitlement_id"] as? String == "pro")
            #expect(answered.first?["store"] as? String == "stripe")
            #expect(answered.first?["original_transaction_id"] as? String == subscription)

            // The webhook events, one per store's purchase, each naming its store (the App Store's names none: it is
            // the default). stripe-sim sells in test mode, so the web purchase is the Sandbox environment's; a first
            // purchase in each store, each is granted (reason `purchase`).
            let events = try await h.pool.query(
                "SELECT event_type, body FROM webhook_events WHERE account_id = 'alice' ORDER BY environment, account_sequence"
            ).map { (try $0.decode(String.self, at: 0), try $0.decode(String.self, at: 1)) }
            #expect(events.count == 3, "\(events)")
            func event(naming product: String) -> (type: String, body: String)? {
                events.first { $0.1.contains("\"product_id\":\"\(product)\"") }.map { (type: $0.0, body: $0.1) }
            }
            let appStoreEvent = try #require(event(naming: "pro.monthly"))
            #expect(appStoreEvent.type == "entitlement.granted" && !appStoreEvent.body.contains("\"store\""))
            let googleEvent = try #require(event(naming: "pro"))
            #expect(googleEvent.type == "entitlement.granted")
            #expect(googleEvent.body.contains("\"store\":\"google_play\""))
            let webEvent = try #require(event(naming: "prod_webpro"))
            #expect(webEvent.type == "entitlement.granted" && webEvent.body.contains(#""reason":"purchase""#))
            #expect(
                webEvent.body.contains("\"store\":\"stripe\"") && webEvent.body.contains("\"environment\":\"Sandbox\""))

            // The revenue report: three sales, each with its store's commission; the web sale pays Stripe's fee.
            let charge = try #require(h.stripe.control.latestCharge(ofSubscription: subscription))
            let chargeJSON = try #require(h.stripe.control.object(charge))
            let chargeObject = try #require(try JSONSerialization.jsonObject(with: chargeJSON) as? [String: Any])
            let balanceID = try #require(chargeObject["balance_transaction"] as? String)
            let balanceJSON = try #require(h.stripe.control.object(balanceID))
            let balance = try #require(try JSONSerialization.jsonObject(with: balanceJSON) as? [String: Any])
            let stripeFee = Int64(try #require(balance["fee"] as? Int)) * 10
            let admin = try await APIKeys(store: APIKeyStore(pool: h.pool)).create(bundleID: nil, name: "ops").secret
            _ = try await ReportProjector(pool: h.pool).projectAll()
            let revenue = try await h.client.call(
                .get, "/v1/admin/reports/revenue?from=2025-11-01&to=2026-01-01&by=month", key: admin)
            #expect(revenue.status == .ok, "\(revenue.json)")
            let rows = revenue.json["rows"] as? [[String: Any]] ?? []
            func amounts(_ product: String) -> [String: Int] {
                let found = rows.filter { $0["product_id"] as? String == product }
                #expect(found.count == 1, "\(product): \(found)")
                return (found.first?["amounts"] as? [String: Any] ?? [:]).compactMapValues { $0 as? Int }
            }
            let appStore = amounts("pro.monthly")
            let googlePlay = amounts("pro")
            let web = amounts("prod_webpro")
            #expect(appStore["sales"] == 1 && googlePlay["sales"] == 1 && web["sales"] == 1)
            #expect(appStore["gross_milli"] == 9_990 && googlePlay["gross_milli"] == 9_990)
            #expect(web["gross_milli"] == 49_990)
            let standard = Proceeds.of(price: 9_990, taxPPM: 0, commissionPPM: Commission.standardPPM)
            let reduced = Proceeds.of(price: 9_990, taxPPM: 0, commissionPPM: Commission.reducedPPM)
            #expect(appStore["commission_milli"].map(Int64.init) == standard.commission)
            #expect(googlePlay["commission_milli"].map(Int64.init) == reduced.commission)
            #expect(web["commission_milli"] == 0)
            #expect(appStore["processing_fee_milli"] == 0 && googlePlay["processing_fee_milli"] == 0)
            #expect(web["processing_fee_milli"].map(Int64.init) == stripeFee)
            #expect(web["proceeds_milli"].map(Int64.init) == 49_990 - stripeFee)
            let totals = revenue.json["totals"] as? [[String: Any]] ?? []
            let total = (totals.first?["amounts"] as? [String: Any] ?? [:]).compactMapValues { $0 as? Int }
            #expect(totals.count == 1 && total["sales"] == 3)
            #expect(
                total["commission_milli"].map(Int64.init) == standard.commission + reduced.commission
                    && total["processing_fee_milli"].map(Int64.init) == stripeFee)
        }
    }
}
