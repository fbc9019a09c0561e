import AppStoreStore
import CatalogFile
import Foundation
import GooglePlay
import GooglePlayClients
import GooglePlaySimulator
import GooglePlayStore
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import PostgresLibPQ
import SubLedgerCore
import SubLedgerHTTP
import SubLedgerStore
import SubLedgerTestSupport
import SubLedgerUseCases
import Testing

/// Google Play purchases on the ledger, through play-sim and PostgreSQL over loopback: an app sold in both stores,
/// a purchase token submitted by an account, verified with the Developer API, credited under the ownership rule,
/// and acknowledged (or consumed) through the outbox only once the credit committed.
@Suite struct GooglePlayPurchaseEndToEndTests {
    static let bundleID = "com.example.one"
    static let packageName = "com.example.android"
    /// The push subscription's audience and service account, as the catalog and play-sim both say.
    static let pushAudience = "https://subledger.example/v1/notifications/google"
    static let pushServiceAccount = "rtdn-push@play-sim.iam.gserviceaccount.com"

    static let catalogYAML = """
        apps:
          - bundle_id: com.example.one
            apple_app_id: 1111111111
            environments: [production, sandbox]
            google_play:
              package_name: com.example.android
              push_audience: https://subledger.example/v1/notifications/google
              push_service_account: rtdn-push@play-sim.iam.gserviceaccount.com
            products:
              - { product_id: pro.monthly, type: auto_renewable, subscription_group_id: "g1", entitlements: [pro] }
              - { product_id: pro, type: auto_renewable, subscription_group_id: "play", group_level: 2, entitlements: [pro], store: google_play }
              - { product_id: pro.plus, type: auto_renewable, subscription_group_id: "play", group_level: 1, entitlements: [pro, plus], store: google_play }
              - { product_id: coins, type: consumable, credits: 100, store: google_play }
        """

    struct Harness: Sendable {
        let sim: GooglePlaySimulator
        let pool: PostgresPool
        let key: String
        let client: any TestClientProtocol
        let sender: StoreObligationSender
        let ingestion: GooglePlayIngestion
        let catalog: CatalogStore
        let gateway: GooglePlayGateway
        /// The second server's client, when the run asked for one (`secondServer`).
        var secondClient: (any TestClientProtocol)? = nil

        var now: Instant { Instant(millisecondsSince1970: sim.control.clock().now) }

        func buy(_ product: String, account: String?, basePlan: String? = nil) async throws -> PurchaseDescription {
            try await sim.control.purchase(
                PurchaseRequest(
                    packageName: GooglePlayPurchaseEndToEndTests.packageName, productId: product,
                    basePlanId: basePlan, obfuscatedExternalAccountId: account))
        }

        func submit(_ account: String, _ purchase: PurchaseDescription, package: String? = nil) async throws
            -> (status: HTTPResponse.Status, json: [String: Any])
        {
            let answer = try await client.call(
                .post, "/v1/purchases/google", key: key,
                json: [
                    "account_id": account, "package_name": package ?? GooglePlayPurchaseEndToEndTests.packageName,
                    "product_id": purchase.productId, "purchase_token": purchase.purchaseToken,
                    "order_id": purchase.orderId,
                ])
            return (answer.status, answer.json)
        }

        func entitlements(_ account: String) async throws -> [String] {
            let answer = try await client.call(.get, "/v1/accounts/\(account)/entitlements", key: key)
            let list = answer.json["entitlements"] as? [[String: Any]] ?? []
            return list.compactMap { $0["entitlement_id"] as? String }.sorted()
        }

        func credits(_ account: String) async throws -> Int64? {
            let answer = try await client.call(.get, "/v1/accounts/\(account)/entitlements", key: key)
            return (answer.json["credits"] as? NSNumber)?.int64Value
        }

        func acknowledgements() async throws -> [(kind: String, account: String, state: String)] {
            try await pool.query(
                "SELECT kind, account_id, state FROM store_obligations WHERE store = 'google_play' ORDER BY obligation_id"
            ).map { row in
                (
                    try row.decode(String.self, at: 0), try row.decode(String.self, at: 1),
                    try row.decode(String.self, at: 2)
                )
            }
        }

        /// The owner of the chain `token` is on (two statements: on Citus the tables are distributed apart).
        func owner(ofToken token: String) async throws -> String? {
            guard
                let chain = try await pool.query(
                    "SELECT original_transaction_id FROM google_purchase_tokens WHERE purchase_token = \(token)"
                ).first?.decode(String.self, at: 0)
            else { return nil }
            return try await pool.query(
                "SELECT owner_account_id FROM chains WHERE original_transaction_id = \(chain)"
            ).first?.decode(String?.self, at: 0)
        }
    }

    /// Runs `body` beside play-sim and a live server; with `pushes` play-sim pushes its notifications to the server's
    /// `/v1/notifications/google` as Pub/Sub would; with `secondServer` a second application on the same database (as
    /// a second `serve` process) answers on its own port (`Harness.secondClient`).
    /// `price`: what the base plans of `pro` and `pro.plus` cost, in micros of its currency (9.99 USD unless a test
    /// prices them in another currency).
    static func run(
        pushes: Bool = false, secondServer: Bool = false,
        price: (micros: Int64, currency: String) = (9_990_000, "USD"),
        _ body: @Sendable (Harness) async throws -> Void
    ) async throws {
        // A push waits for the server's answer (so a test reads the server's rows right after one), however long a
        // loaded machine takes: a notification the Developer API fails is retried with the gateway's backoff
        // (seconds) before the server answers, longer than play-sim's default 5 s.
        let sim = try await GooglePlaySimulator.start(
            .init(
                pushTimeout: .seconds(120),
                packages: [
                    PackageDefinition(
                        packageName: packageName,
                        subscriptions: [
                            SubscriptionDefinition(
                                productId: "pro",
                                basePlans: [
                                    BasePlanDefinition(
                                        basePlanId: "monthly", billingPeriod: .oneMonth, priceMicros: price.micros,
                                        currencyCode: price.currency)
                                ]),
                            SubscriptionDefinition(
                                productId: "pro.plus",
                                basePlans: [
                                    BasePlanDefinition(
                                        basePlanId: "monthly", billingPeriod: .oneMonth, priceMicros: price.micros,
                                        currencyCode: price.currency)
                                ]),
                        ],
                        products: [OneTimeProductDefinition(productId: "coins", consumable: true)])
                ]))
        do {
            try await TestDatabase.withSchema(maxConnections: 8, template: .ledger) { _, _, pool in
                let migrator = try Migrator.bundled(logger: TestDatabase.logger)
                try await migrator.migrate(pool)
                let secretKeys = try SecretKeyring(keys: [SecretKey.generate()])
                let catalog = CatalogStore(pool: pool, secretKeys: secretKeys)
                let (definitions, _) = try CatalogFile.read(catalogYAML)
                let keyJSON = String(decoding: try sim.serviceAccountKey.jsonData(), as: UTF8.self)
                try await catalog.applyCatalog(
                    definitions, secrets: [bundleID: AppSecrets(stores: .googlePlay(serviceAccountKey: keyJSON))])
                let keys = APIKeys(store: APIKeyStore(pool: pool))
                let key = try await keys.create(bundleID: bundleID, name: "one").secret
                let gateway = GooglePlayGateway(
                    httpClient: .shared,
                    configuration: .init(
                        developerAPI: .init(baseURL: sim.developerAPIBaseURL), pushKeys: .init(url: sim.jwksURL)),
                    logger: TestDatabase.logger)
                let now: @Sendable () -> Instant = { Instant(millisecondsSince1970: sim.control.clock().now) }
                let apple = try AppleGateway(
                    configuration: AppleConfiguration(
                        verifyReceiptProductionURL: "http://127.0.0.1:9/verifyReceipt",
                        verifyReceiptSandboxURL: "http://127.0.0.1:9/sandbox/verifyReceipt", trustAppleRoot: true,
                        timeout: .seconds(2)),
                    logger: TestDatabase.logger)
                var dependencies = ServiceDependencies(pool: pool, migrator: migrator, apple: apple, now: now)
                dependencies.stores = StoreRegistry(apple: apple, [GooglePlayRegistration(gateway: gateway)])
                var configuration = ServiceConfiguration(host: "127.0.0.1", port: 0)
                configuration.idleTimeout = .seconds(600)
                configuration.secretKeys = secretKeys
                let (serviceConfiguration, built) = (configuration, dependencies)
                @Sendable func application() -> some ApplicationProtocol {
                    buildApplication(
                        configuration: serviceConfiguration, dependencies: built, logger: TestDatabase.logger)
                }
                let app = application()
                let sender = StoreObligationSender(
                    configuration: .init(worker: "google-e2e"), store: StoreObligationStore(pool: pool),
                    catalog: catalog, senders: [GooglePlayObligationSender(gateway: gateway)],
                    logger: TestDatabase.logger, now: now)
                let ingestion = GooglePlayIngestion(
                    store: LedgerStore(pool: pool), gateway: gateway, logger: TestDatabase.logger, now: now)
                try await app.test(.live) { client in
                    if pushes, let port = client.port {
                        _ = try await sim.control.updateNotificationSettings(
                            NotificationSettingsUpdate(
                                pushUrl: "http://127.0.0.1:\(port)/v1/notifications/google", audience: pushAudience,
                                serviceAccountEmail: pushServiceAccount))
                    }
                    let harness = Harness(
                        sim: sim, pool: pool, key: key, client: client, sender: sender, ingestion: ingestion,
                        catalog: catalog, gateway: gateway)
                    guard secondServer else { return try await body(harness) }
                    try await application().test(.live) { second in
                        var both = harness
                        both.secondClient = second
                        try await body(both)
                    }
                }
            }
        } catch {
            try? await sim.shutdown()
            throw error
        }
        try await sim.shutdown()
    }

    @Test func aSubscriptionIsCreditedThenAcknowledgedOnceAndStaysBoughtPastGooglesThreeDays() async throws {
        try await Self.run { h in
            let bought = try await h.buy("pro", account: "alice")
            #expect(!bought.acknowledged)
            let first = try await h.submit("alice", bought)
            #expect(first.status == .ok)
            #expect(try await h.entitlements("alice") == ["pro"])
            // Credited and committed; the acknowledgement is owed but not sent by the request itself.
            #expect(try await h.acknowledgements().map(\.state) == ["pending"])
            #expect(try h.sim.control.describe(bought.purchaseToken).acknowledged == false)
            // The same submission again (the app retried): nothing new is owed.
            #expect(try await h.submit("alice", bought).status == .ok)
            #expect(try await h.acknowledgements().count == 1)

            // The process that credited it died before acknowledging: the next cycle of any sender does, on day 2.
            _ = try await h.sim.control.advanceClock(ClockAdvanceRequest(days: 2))
            #expect(try await h.sender.runCycle().sent == 1)
            #expect(try h.sim.control.describe(bought.purchaseToken).acknowledged)
            #expect(try await h.acknowledgements().map(\.state) == ["sent"])
            #expect(try await h.sender.runCycle() == .init())
            #expect(try await h.acknowledgements().map(\.kind) == ["acknowledge_subscription"])

            // Past Google's three days the purchase stands (an unacknowledged one is refunded then).
            _ = try await h.sim.control.advanceClock(ClockAdvanceRequest(days: 2))
            #expect(try h.sim.control.describe(bought.purchaseToken).state == "active")
            #expect(try await h.entitlements("alice") == ["pro"])
        }
    }

    @Test func anotherAccountSubmittingAnActiveSubscriptionGetsNothingAndRenewalsStayWithTheOwner() async throws {
        try await Self.run { h in
            // alice buys; bob, signed in later on the same phone and Google account, restores the purchase.
            let bought = try await h.buy("pro", account: "alice")
            #expect(try await h.submit("alice", bought).status == .ok)
            let restored = try await h.submit("bob", bought)
            #expect(restored.status == .ok)
            #expect(try await h.entitlements("bob") == [])
            #expect(try await h.entitlements("alice") == ["pro"])
            #expect(try await h.owner(ofToken: bought.purchaseToken) == "alice")
            #expect(try await h.sender.runCycle().sent == 1)

            // The month renews at Google; the poller reads the chain again and alice keeps it past the first period.
            _ = try await h.sim.control.advanceClock(ClockAdvanceRequest(days: 40))
            let chain = try #require(
                try await h.pool.query(
                    "SELECT original_transaction_id FROM google_purchase_tokens WHERE purchase_token = \(bought.purchaseToken)"
                ).first?.decode(String.self, at: 0))
            let app = try #require(try await h.catalog.app(bundleID: Self.bundleID))
            let polled = try await h.ingestion.pollChain(
                ChainKey(environment: .production, chainID: chain), app: app)
            #expect(polled?.decision.entries.contains { $0.kind == .extend && $0.account.rawValue == "alice" } == true)
            #expect(try await h.entitlements("alice") == ["pro"])
            #expect(try await h.entitlements("bob") == [])
            let orders = try await h.pool.query(
                "SELECT transaction_id FROM transactions WHERE original_transaction_id = \(chain) ORDER BY purchase_date"
            ).map { try $0.decode(String.self, at: 0) }
            #expect(orders == [chain, chain + "..0"])
            // One acknowledgement per token: the renewal owed none.
            #expect(try await h.acknowledgements().map(\.account) == ["alice"])
        }
    }

    /// docs/explanation/ownership.md, story 2, on Google Play: alice stops renewing; bob, on the same phone and Google
    /// account, signs up again before her period ends (Google makes a new token linked to hers, on her chain); the
    /// chain moves to bob, and alice restoring later gets nothing while bob renews.
    @Test func aResignupAfterTheOwnerStoppedRenewingMovesTheChainAndLaterRestoresStayWithTheNewOwner() async throws {
        try await Self.run { h in
            let bought = try await h.buy("pro", account: "alice")
            #expect(try await h.submit("alice", bought).status == .ok)
            #expect(try await h.sender.runCycle().sent == 1)
            let app = try #require(try await h.catalog.app(bundleID: Self.bundleID))
            let chain = ChainKey(environment: .production, chainID: bought.orderId)

            // Day 10: alice turns renewal off; the poller learns it from Google.
            _ = try await h.sim.control.advanceClock(ClockAdvanceRequest(days: 10))
            _ = try await h.sim.control.cancel(bought.purchaseToken)
            _ = try await h.ingestion.pollChain(chain, app: app)
            #expect(try await h.entitlements("alice") == ["pro"])

            // Day 20: bob signs up again on the same Google account (his app session sets his account id): a new
            // token naming alice's.
            _ = try await h.sim.control.advanceClock(ClockAdvanceRequest(days: 10))
            let resigned = try await h.sim.control.changePlan(
                bought.purchaseToken,
                ChangePlanRequest(productId: "pro", basePlanId: "monthly", obfuscatedExternalAccountId: "bob"))
            #expect(resigned.linkedPurchaseToken == bought.purchaseToken)
            let submitted = try await h.submit("bob", resigned)
            #expect(submitted.status == .ok)
            #expect(try await h.owner(ofToken: resigned.purchaseToken) == "bob")
            #expect(try await h.entitlements("bob") == ["pro"])
            #expect(try await h.entitlements("alice") == [])
            let transfers = try await h.pool.query(
                "SELECT kind, account_id FROM ledger_entries WHERE kind IN ('transfer_out', 'transfer_in') ORDER BY kind"
            ).map { "\(try $0.decode(String.self, at: 0)) \(try $0.decode(String.self, at: 1))" }
            #expect(transfers == ["transfer_in bob", "transfer_out alice"])
            #expect(try await h.sender.runCycle().sent == 1)

            // Day 55: bob's period renewed at Google; alice signs in again and restores the new token.
            _ = try await h.sim.control.advanceClock(ClockAdvanceRequest(days: 35))
            let restored = try await h.submit("alice", resigned)
            #expect(restored.status == .ok)
            let outcomes = restored.json["transactions"] as? [[String: Any]] ?? []
            #expect(outcomes.map { $0["result"] as? String } == ["belongs_to_another_account"])
            #expect(try await h.entitlements("alice") == [])
            #expect(try await h.entitlements("bob") == ["pro"])
            #expect(try await h.owner(ofToken: resigned.purchaseToken) == "bob")
        }
    }

    /// The ownership rule is about the chain, never one token. After bob's re-signup moved the chain to him, alice
    /// submits her old token again: Google shows that token replaced (auto-renew off), which is that token's state, not
    /// the subscription's. The rule reads the chain's state from the lineage's newest token: bob pays and auto-renews,
    /// so alice gets nothing, and the owner is not whoever submitted last. Still so after bob's renewal at Google,
    /// which SubLedger hears of first through alice's stale submission.
    @Test func aReplacedTokenSubmittedAgainByTheFormerOwnerLeavesTheChainWithTheAccountPayingForIt() async throws {
        try await Self.run { h in
            let bought = try await h.buy("pro", account: "alice")
            #expect(try await h.submit("alice", bought).status == .ok)
            // Acknowledged (by this sender or the server's), so Google keeps the purchase past three days.
            _ = try await h.sender.runCycle()
            #expect(try h.sim.control.describe(bought.purchaseToken).acknowledged)
            let app = try #require(try await h.catalog.app(bundleID: Self.bundleID))
            let chain = ChainKey(environment: .production, chainID: bought.orderId)
            _ = try await h.sim.control.advanceClock(ClockAdvanceRequest(days: 10))
            _ = try await h.sim.control.cancel(bought.purchaseToken)
            _ = try await h.ingestion.pollChain(chain, app: app)
            _ = try await h.sim.control.advanceClock(ClockAdvanceRequest(days: 10))
            let resigned = try await h.sim.control.changePlan(
                bought.purchaseToken,
                ChangePlanRequest(productId: "pro", basePlanId: "monthly", obfuscatedExternalAccountId: "bob"))
            #expect(try await h.submit("bob", resigned).status == .ok)
            _ = try await h.sender.runCycle()
            #expect(try h.sim.control.describe(resigned.purchaseToken).acknowledged)
            #expect(try await h.owner(ofToken: resigned.purchaseToken) == "bob")
            #expect(try h.sim.control.describe(bought.purchaseToken).state == "expired")

            func transfers() async throws -> [String] {
                try await h.pool.query(
                    "SELECT kind, account_id FROM ledger_entries WHERE kind IN ('transfer_out', 'transfer_in') ORDER BY entry_id"
                ).map { "\(try $0.decode(String.self, at: 0)) \(try $0.decode(String.self, at: 1))" }
            }
            func expectAliceGetsNothing(_ answer: (status: HTTPResponse.Status, json: [String: Any])) {
                #expect(answer.status == .ok)
                let outcomes = answer.json["transactions"] as? [[String: Any]] ?? []
                #expect(outcomes.contains { $0["transaction_id"] as? String == bought.orderId }, "\(answer.json)")
                #expect(
                    outcomes.allSatisfy { $0["result"] as? String == "belongs_to_another_account" }, "\(answer.json)")
            }

            // Alice's replaced token, submitted again: the chain stays with bob.
            expectAliceGetsNothing(try await h.submit("alice", bought))
            #expect(try await h.owner(ofToken: resigned.purchaseToken) == "bob")
            #expect(try await h.entitlements("bob") == ["pro"])
            #expect(try await h.entitlements("alice") == [])
            // Bob's own token again moves nothing either: one transfer, alice to bob, in all.
            #expect(try await h.submit("bob", resigned).status == .ok)
            #expect(try await transfers() == ["transfer_out alice", "transfer_in bob"])

            // Day 55: bob's period renewed at Google; SubLedger first hears of it through alice's stale token.
            _ = try await h.sim.control.advanceClock(ClockAdvanceRequest(days: 35))
            expectAliceGetsNothing(try await h.submit("alice", bought))
            #expect(try await h.owner(ofToken: resigned.purchaseToken) == "bob")
            #expect(try await h.entitlements("bob") == ["pro"])
            #expect(try await h.entitlements("alice") == [])
            #expect(try await transfers() == ["transfer_out alice", "transfer_in bob"])
            // The poller reads the lineage's newest token, not the chain's first.
            let polled = try await h.ingestion.pollChain(chain, app: app)
            #expect(polled?.decision.bindingChanges.isEmpty == true)
            #expect(try await h.entitlements("bob") == ["pro"])
        }
    }

    /// A purchase and its upgrade or downgrade at the same millisecond: which order is the chain's latest is a fact
    /// of the lineage (the new token replaced the old), not of the order ids' spelling. Several lineages each way, so
    /// that ids sorting either way are met; each ends with the new product's entitlements, whichever token arrives
    /// first.
    @Test func aPlanChangeInThePurchasesOwnMillisecondEndsOnTheNewPlan() async throws {
        try await Self.run { h in
            let changes: [(from: String, to: String, entitlements: [String])] = [
                ("pro", "pro.plus", ["plus", "pro"]), ("pro.plus", "pro", ["pro"]),
            ]
            for round in 0..<3 {
                for (index, change) in changes.enumerated() {
                    let account = "user\(round)x\(index)"
                    let bought = try await h.buy(change.from, account: account)
                    let changed = try await h.sim.control.changePlan(
                        bought.purchaseToken, ChangePlanRequest(productId: change.to, basePlanId: "monthly"))
                    #expect(changed.linkedPurchaseToken == bought.purchaseToken)
                    let first = round.isMultiple(of: 2) ? bought : changed
                    let second = round.isMultiple(of: 2) ? changed : bought
                    #expect(try await h.submit(account, first).status == .ok)
                    #expect(try await h.submit(account, second).status == .ok)
                    #expect(
                        try await h.entitlements(account) == change.entitlements,
                        "\(change.from) -> \(change.to), orders \(bought.orderId) then \(changed.orderId)")
                    let product = try await h.pool.query(
                        "SELECT product_id FROM chains WHERE original_transaction_id = \(bought.orderId)"
                    ).first?.decode(String.self, at: 0)
                    #expect(product == change.to)
                }
            }
        }
    }

    @Test func supportLooksUpAGooglePlayPurchaseByOrderIDAndByPurchaseToken() async throws {
        try await Self.run { h in
            let subscription = try await h.buy("pro", account: "alice")
            #expect(try await h.submit("alice", subscription).status == .ok)
            let coins = try await h.buy("coins", account: "carol")
            #expect(try await h.submit("carol", coins).status == .ok)
            let admin = try await APIKeys(store: APIKeyStore(pool: h.pool)).create(bundleID: nil, name: "support")
                .secret
            for (path, owner) in [
                ("transaction/\(subscription.orderId)", "alice"),
                ("purchase-token/\(subscription.purchaseToken)", "alice"),
                ("purchase-token/\(coins.purchaseToken)", "carol"), ("transaction/\(coins.orderId)", "carol"),
            ] {
                let answer = try await h.client.call(.get, "/v1/admin/lookup/\(path)", key: admin)
                #expect(answer.status == .ok, "\(path)")
                let chains = answer.json["chains"] as? [[String: Any]] ?? []
                #expect(chains.first?["owner_account_id"] as? String == owner, "\(path): \(answer.json)")
                #expect(chains.first?["store"] as? String == "google_play", "\(path)")
                #expect(
                    answer.json["kind"] as? String == (path.hasPrefix("purchase") ? "purchase_token" : "transaction"))
            }
            let unknown = try await h.client.call(.get, "/v1/admin/lookup/purchase-token/nosuchtoken", key: admin)
            #expect(unknown.status == .notFound)
            #expect(unknown.json.errorCode == "purchase_token_not_found")
            let invalid = try await h.client.call(.get, "/v1/admin/lookup/purchase-token/bad%20token", key: admin)
            #expect(invalid.status == .badRequest)
            #expect(invalid.json.errorCode == "invalid_purchase_token")
            // The admin page's search box finds a pasted order id and a pasted token.
            #expect(SupportQuery.candidates(subscription.orderId).first == .transaction(subscription.orderId))
            #expect(
                SupportQuery.candidates(subscription.purchaseToken).contains(.purchaseToken(subscription.purchaseToken))
            )
        }
    }

    /// `subledger import` of a Google Play file: each purchase token read from Google, claimed by its row's account,
    /// acknowledged through the outbox; a bad row refused with its line; a second run skips what was done.
    @Test func existingGooglePlaySubscribersAreImportedFromAFileOfPurchaseTokens() async throws {
        try await Self.run { h in
            let subscription = try await h.buy("pro", account: nil)
            let coins = try await h.buy("coins", account: nil)
            let csv = """
                account_id,product_id,purchase_token
                alice,pro,\(subscription.purchaseToken)
                carol,coins,\(coins.purchaseToken)
                dave,pro,not a token
                alice,pro,\(subscription.purchaseToken)

                """
            let file = try ImportFile(bytes: Array(csv.utf8))
            #expect(file.rows.count == 2)
            #expect(file.refused.map(\.reason.code) == ["invalid_purchase_token", "duplicate_row"])
            let app = try #require(try await h.catalog.app(bundleID: Self.bundleID))
            let apple = try AppleGateway(
                configuration: AppleConfiguration(
                    verifyReceiptProductionURL: "http://127.0.0.1:9/verifyReceipt",
                    verifyReceiptSandboxURL: "http://127.0.0.1:9/sandbox/verifyReceipt", trustAppleRoot: true,
                    timeout: .seconds(2)),
                logger: TestDatabase.logger)
            let ingestion = Ingestion(
                store: LedgerStore(pool: h.pool), catalog: h.catalog, apple: apple, logger: TestDatabase.logger,
                now: { Instant(millisecondsSince1970: h.sim.control.clock().now) })
            let importer = try MigrationImporter(
                ingestion: ingestion,
                googlePlay: GooglePlayPort(
                    ingestion: h.ingestion, catalog: h.catalog, logger: TestDatabase.logger,
                    now: { Instant(millisecondsSince1970: h.sim.control.clock().now) }),
                app: app)
            let summary = try await importer.run(file, fileName: "google.csv")
            #expect(summary.progress.rowsOK == 2)
            #expect(summary.progress.rowsFailed == 2)
            #expect(try await h.entitlements("alice") == ["pro"])
            #expect(try await h.credits("carol") == 100)
            #expect(try await h.acknowledgements().map(\.account).sorted() == ["alice", "carol"])
            #expect(try await h.sender.runCycle().sent == 2)
            #expect(try h.sim.control.describe(subscription.purchaseToken).acknowledged)

            let again = try await importer.run(file, fileName: "google.csv")
            #expect(again.progress.rowsSkipped == 2)
            #expect(try await h.credits("carol") == 100)
        }
    }

    @Test func anUpgradeMakesANewTokenThatStaysOnTheChain() async throws {
        try await Self.run { h in
            let bought = try await h.buy("pro", account: "alice")
            #expect(try await h.submit("alice", bought).status == .ok)
            #expect(try await h.sender.runCycle().sent == 1)
            _ = try await h.sim.control.advanceClock(ClockAdvanceRequest(days: 5))
            let upgraded = try await h.sim.control.changePlan(
                bought.purchaseToken, ChangePlanRequest(productId: "pro.plus", basePlanId: "monthly"))
            #expect(upgraded.linkedPurchaseToken == bought.purchaseToken)
            #expect(try await h.submit("alice", upgraded).status == .ok)
            #expect(try await h.entitlements("alice") == ["plus", "pro"])
            let chains = try await h.pool.query(
                "SELECT DISTINCT original_transaction_id FROM google_purchase_tokens"
            ).map { try $0.decode(String.self, at: 0) }
            #expect(chains.count == 1)
            #expect(try await h.owner(ofToken: upgraded.purchaseToken) == "alice")
            // Each token is acknowledged: the upgrade's is a new purchase at Google.
            #expect(try await h.sender.runCycle().sent == 1)
            #expect(try await h.acknowledgements().map(\.state) == ["sent", "sent"])
            #expect(try h.sim.control.describe(upgraded.purchaseToken).acknowledged)
        }
    }

    @Test func aConsumableIsCreditedOnceAndConsumed() async throws {
        try await Self.run { h in
            let bought = try await h.buy("coins", account: "carol")
            #expect(try await h.submit("carol", bought).status == .ok)
            #expect(try await h.submit("carol", bought).status == .ok)
            #expect(try await h.credits("carol") == 100)
            #expect(try await h.acknowledgements().map(\.kind) == ["consume_product"])
            #expect(try await h.sender.runCycle().sent == 1)
            let consumed = try h.sim.control.describe(bought.purchaseToken)
            #expect(consumed.state == "consumed")
            #expect(try await h.credits("carol") == 100)
        }
    }

    @Test func wrongPackagesTokensAndProductsAreRefusedWithNoStateChange() async throws {
        try await Self.run { h in
            let bought = try await h.buy("pro", account: "alice")
            let wrongPackage = try await h.submit("alice", bought, package: "com.example.other")
            #expect(wrongPackage.status == .unprocessableContent)
            #expect((wrongPackage.json["error"] as? [String: Any])?["code"] as? String == "invalid_purchase")
            var forged = bought
            forged.purchaseToken = "notatoken.AO-J1Oforged"
            let unknown = try await h.submit("alice", forged)
            #expect(unknown.status == .unprocessableContent)
            #expect((unknown.json["error"] as? [String: Any])?["code"] as? String == "invalid_purchase")
            var appleProduct = bought
            appleProduct.productId = "pro.monthly"
            #expect(try await h.submit("alice", appleProduct).status == .unprocessableContent)
            var malformed = bought
            malformed.purchaseToken = "token with spaces"
            let refused = try await h.submit("alice", malformed)
            #expect(refused.status == .badRequest)
            #expect((refused.json["error"] as? [String: Any])?["code"] as? String == "invalid_purchase_token")
            #expect(try await h.entitlements("alice") == [])
            #expect(try await h.acknowledgements().isEmpty)
            #expect(
                try await h.pool.query("SELECT count(*) FROM chains").single().decode(Int64.self, at: 0) == 0)
        }
    }
}
