import AppStore
import AppStoreSimulator
import CatalogFile
import Foundation
import GooglePlayStore
import HTTPTypes
import HummingbirdTesting
import NIOCore
import PostgresLibPQ
import SubLedgerCore
import SubLedgerStore
import SubLedgerTestSupport
import SubLedgerUseCases
import Testing

/// One obligation sender, built as every `serve` and `poll` process builds it (`StoreObligationSender.live`), sends
/// what two applies owed two stores, through appstore-sim, play-sim and PostgreSQL: a Finish Transaction to Apple
/// and a consumption to Google, each once, both retried under the one policy while they cannot be sent.
@Suite struct StoreObligationSenderTests {
    typealias E = EndToEndHarness

    struct Row: Equatable {
        var store: String
        var kind: String
        var state: String
        var attempts: Int
        var nextAttempt: Instant?
    }

    static func rows(_ e: E) async throws -> [Row] {
        try await e.service.pool.query(
            "SELECT store, kind, state, attempts, next_attempt_at FROM store_obligations ORDER BY obligation_id"
        ).map { row in
            Row(
                store: try row.decode(String.self, at: 0), kind: try row.decode(String.self, at: 1),
                state: try row.decode(String.self, at: 2), attempts: Int(try row.decode(Int32.self, at: 3)),
                nextAttempt: try row.decode(PostgresTimestamp?.self, at: 4).map {
                    Instant(millisecondsSince1970: $0.millisecondsSince1970)
                })
        }
    }

    /// App one selling coins in both stores, Apple's purchases finished once credited.
    static let catalogYAML = ServiceHarness.catalogYAML.replacingOccurrences(
        of: "    shared_secret: one-secret\n",
        with: """
                shared_secret: one-secret
                write_back: { finish_transactions: true }
                google_play: { package_name: \(PlayStoreFixture.packageName) }

            """
    ).replacingOccurrences(
        of: "      - { product_id: coins.100, type: consumable, credits: 100 }\n",
        with: """
                  - { product_id: coins.100, type: consumable, credits: 100 }
                  - { product_id: coins, type: consumable, credits: 100, store: google_play }

            """)

    @Test func oneSenderSendsAnAppleAndAGoogleObligationEachOnceRetriedUnderOnePolicy() async throws {
        try await PlayStoreFixture.run { play in
            try await E.run { e in
                // Google's key only: Apple's Server API key is added later.
                let (catalog, _) = try CatalogFile.read(Self.catalogYAML)
                let googleKey = try play.serviceAccountKey()
                try await e.service.catalog.applyCatalog(
                    catalog, secrets: [E.bundleID: AppSecrets(stores: .googlePlay(serviceAccountKey: googleKey))])
                let app = try #require(try await e.service.catalog.app(bundleID: E.bundleID))

                // Two applies: coins bought from Apple, then from Google, each credited to cora.
                let apple = try await e.control.purchase(
                    PurchaseRequest(appleID: try e.appleID(), bundleID: E.bundleID, productID: "coins.100"))
                try await AppleWriteBackEndToEndTests.submit(e, "cora", try #require(apple.signedTransaction))
                let token = try await play.buyCoins(account: "cora")
                let ingestion = GooglePlayIngestion(
                    store: e.service.store, gateway: play.gateway, logger: TestDatabase.logger, now: { play.now })
                _ = try await ingestion.submitPurchase(
                    .init(packageName: PlayStoreFixture.packageName, productID: "coins", purchaseToken: token),
                    account: try AccountID("cora"), app: app)
                #expect(try await Self.rows(e).map(\.kind) == ["finish_transaction", "consume_product"])
                #expect(try await e.entitlements("cora")["credits"] as? Int == 200)

                let clock = TestClock(Instant(millisecondsSince1970: e.control.clock().now))
                let configuration = StoreObligationSender.Configuration(worker: "one-process")
                let sender = StoreObligationSender.live(
                    configuration: configuration, pool: e.service.pool, catalog: e.service.catalog,
                    gateways: StoreGateways(
                        apple: try AppleWriteBackEndToEndTests.gateway(e),
                        registry: StoreRegistry([GooglePlayRegistration(gateway: play.gateway)])),
                    logger: TestDatabase.logger, now: { clock.now })
                // The policy's first retry: the same for a call never made (Apple, no key) and one that failed.
                let retryAt = configuration.retry.nextAttempt(afterAttempts: 0, now: clock.now)
                #expect(retryAt > clock.now)

                // Neither can be sent: Apple's key is missing (Apple not called), Google answers 503 (called).
                try play.failDeveloperAPI()
                var first = StoreObligationSender.CycleReport()
                first.retrying = 2
                #expect(try await sender.runCycle() == first)
                #expect(
                    try await Self.rows(e) == [
                        Row(
                            store: "app_store", kind: "finish_transaction", state: "retry", attempts: 0,
                            nextAttempt: retryAt),
                        Row(
                            store: "google_play", kind: "consume_product", state: "retry", attempts: 1,
                            nextAttempt: retryAt),
                    ])
                #expect(e.control.serverWriteBacks().isEmpty)
                #expect(try !play.isConsumed(token))
                // The admin page's one panel shows both stores' obligations waiting, and why.
                let admin = try await e.service.keys.create(bundleID: nil, name: "ops").secret
                let page = try await e.client.executeRequest(
                    uri: "/admin", method: .get,
                    headers: [.authorization: "Basic " + Data("ops:\(admin)".utf8).base64EncodedString()], body: nil)
                let html = String(buffer: page.body)
                #expect(html.contains("<h2>Writes to the stores</h2>"))
                #expect(html.contains("<td>app_store</td><td><code>finish_transaction</code></td><td>1</td>"))
                #expect(html.contains("<td>google_play</td><td><code>consume_product</code></td><td>1</td>"))
                #expect(html.contains("no_server_api_key"))

                // Both could be sent now, but neither is due before the policy's retry.
                play.recover()
                let simApp = try e.control.app(E.bundleID)
                try await e.service.catalog.applyCatalog(
                    catalog,
                    secrets: [
                        E.bundleID: AppSecrets(
                            serverAPI: .init(
                                issuerID: simApp.serverAPI.issuerID, keyID: simApp.serverAPI.keyID,
                                privateKeyPEM: try #require(simApp.serverAPI.privateKeyPEM)),
                            stores: .googlePlay(serviceAccountKey: googleKey))
                    ])
                #expect(try await sender.runCycle() == .init())
                clock.set(retryAt.adding(milliseconds: -1))
                #expect(try await sender.runCycle() == .init())
                clock.set(retryAt)
                var second = StoreObligationSender.CycleReport()
                second.sent = 2
                #expect(try await sender.runCycle() == second)
                #expect(try await Self.rows(e).map(\.state) == ["sent", "sent"])
                #expect(try await Self.rows(e).map(\.attempts) == [1, 2])
                #expect(e.control.serverWriteBacks().map(\.transactionID) == [try #require(apple.transactionID)])
                #expect(try play.isConsumed(token))

                // Sent is done: a later cycle sends neither again.
                clock.set(retryAt.adding(milliseconds: 86_400_000))
                #expect(try await sender.runCycle() == .init())
                #expect(e.control.serverWriteBacks().count == 1)
            }
        }
    }
}
