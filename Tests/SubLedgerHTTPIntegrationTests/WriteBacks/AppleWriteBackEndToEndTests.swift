import AppStore
import AppStoreSimulator
import AppStoreStore
import CatalogFile
import Foundation
import SubLedgerCore
import SubLedgerStore
import SubLedgerTestSupport
import SubLedgerUseCases
import Testing

/// What SubLedger tells Apple after an apply (`write_back` in the catalog), through appstore-sim and PostgreSQL:
/// Set App Account Token when an account claims a chain that arrived without one (an offer code redeemed in the
/// App Store), so Apple's next renewal names the account; Finish Transaction once a consumable is credited, so the
/// device stops redelivering a purchase whose app died before finishing it. Each is recorded with the apply that
/// owes it and sent once by the poller, retried while it cannot be sent.
@Suite struct AppleWriteBackEndToEndTests {
    typealias E = EndToEndHarness

    /// App one's catalog with `write_back: policy`, and (unless `withKey` is false) the simulator's Server API key.
    static func enable(_ e: E, _ policy: String, withKey: Bool = true) async throws {
        let yaml = ServiceHarness.catalogYAML.replacingOccurrences(
            of: "    shared_secret: one-secret\n", with: "    shared_secret: one-secret\n    write_back: \(policy)\n")
        let (catalog, _) = try CatalogFile.read(yaml)
        var secrets: [String: AppSecrets] = [:]
        if withKey {
            let simApp = try e.control.app(E.bundleID)
            secrets[E.bundleID] = AppSecrets(
                serverAPI: .init(
                    issuerID: simApp.serverAPI.issuerID, keyID: simApp.serverAPI.keyID,
                    privateKeyPEM: try #require(simApp.serverAPI.privateKeyPEM)))
        }
        try await e.service.catalog.applyCatalog(catalog, secrets: secrets)
    }

    /// SubLedger's gateway to appstore-sim's Server API.
    static func gateway(_ e: E) throws -> AppleGateway {
        try AppleGateway(
            configuration: AppleConfiguration(
                verifyReceiptProductionURL: e.sim.productionVerifyReceiptURL,
                verifyReceiptSandboxURL: e.sim.sandboxVerifyReceiptURL, trustAppleRoot: false, timeout: .seconds(20),
                serverAPIProductionURL: e.sim.serverAPIBaseURL(.production),
                serverAPISandboxURL: e.sim.serverAPIBaseURL(.sandbox)),
            additionalRoots: [e.sim.trustedRoot], logger: TestDatabase.logger)
    }

    /// The obligation sender, with the App Store's adapter.
    static func sender(_ e: E) throws -> StoreObligationSender {
        let configuration = StoreObligationSender.Configuration(worker: "write-backs-e2e")
        let apple = try gateway(e)
        return StoreObligationSender(
            configuration: configuration, store: StoreObligationStore(pool: e.service.pool),
            catalog: e.service.catalog,
            senders: [
                AppStoreObligationSender(
                    apple: apple, tokens: AccountTokenStore(pool: e.service.pool),
                    consumption: ConsumptionAnswerSender(
                        store: ConsumptionStore(pool: e.service.pool), apple: apple, retry: configuration.retry,
                        logger: TestDatabase.logger),
                    externalPurchases: ExternalPurchaseReportSender(
                        store: ExternalPurchaseStore(pool: e.service.pool), apple: apple))
            ],
            logger: TestDatabase.logger, now: { Instant(millisecondsSince1970: e.control.clock().now) })
    }

    struct Row: Equatable {
        var kind: String
        var transactionID: String
        var account: String
        var state: String
        var token: String?
    }

    static func rows(_ e: E) async throws -> [Row] {
        try await e.service.pool.query(
            """
            SELECT kind, transaction_id, account_id, state, app_account_token::text FROM store_obligations
            WHERE store = 'app_store' ORDER BY obligation_id
            """
        ).map { row in
            Row(
                kind: try row.decode(String.self, at: 0), transactionID: try row.decode(String.self, at: 1),
                account: try row.decode(String.self, at: 2), state: try row.decode(String.self, at: 3),
                token: try row.decode(String?.self, at: 4))
        }
    }

    static func submit(_ e: E, _ account: String, _ signed: String) async throws {
        let answer = try await e.client.call(
            .post, "/v1/transactions", key: e.key, json: ["account_id": account, "signed_transaction": signed])
        #expect(answer.status == .ok)
    }

    @Test func anOfferCodeClaimedByAnAccountIsWrittenBackAndTheNextRenewalArrivesClaimed() async throws {
        try await E.run { e in
            try await Self.enable(e, "{ app_account_tokens: true }")
            let redeemed = try await e.control.purchase(
                PurchaseRequest(
                    appleID: try e.appleID(), bundleID: E.bundleID, productID: "pro.monthly",
                    offer: OfferRedemption(kind: .offerCode, identifier: "SPRING2026", price: 4_990)))
            let original = try #require(redeemed.originalTransactionID)
            await e.deliverNotifications()
            // Redeemed in the App Store: no token, nobody to tell Apple about yet.
            #expect(try await WebhookEventTests.events(e).filter { $0.type == "transaction.unclaimed" }.count == 1)
            #expect(try await Self.rows(e).isEmpty)

            // dana opens the app and the purchase is claimed: Apple is owed dana's token, once.
            try await Self.submit(e, "dana", try #require(redeemed.signedTransaction))
            try await Self.submit(e, "dana", try #require(redeemed.signedTransaction))
            #expect(
                try await Self.rows(e) == [
                    Row(
                        kind: "set_app_account_token", transactionID: original, account: "dana", state: "pending",
                        token: nil)
                ])
            #expect(e.control.serverWriteBacks().isEmpty)
            let sender = try Self.sender(e)
            #expect(try await sender.runCycle().sent == 1)
            let token = try await e.service.pool.query(
                "SELECT token::text FROM account_tokens WHERE account_id = 'dana'"
            ).single().decode(String.self, at: 0)
            #expect(try await Self.rows(e).map(\.state) == ["sent"])
            #expect(try await Self.rows(e).map(\.token) == [token])
            #expect(e.control.serverWriteBacks().map(\.appAccountToken) == [token])
            #expect(e.control.serverWriteBacks().map(\.transactionID) == [original])
            #expect(try await sender.runCycle() == .init())
            #expect(e.control.serverWriteBacks().count == 1)

            // Apple's next renewal of the chain carries the token, which names dana.
            _ = await e.control.advanceClock(.init(seconds: 31 * 86_400))
            await e.deliverNotifications()
            let renewal = try await e.service.pool.query(
                """
                SELECT transaction_id, account_id, app_account_token FROM transactions
                WHERE original_transaction_id = \(original) ORDER BY purchase_date DESC LIMIT 1
                """
            ).single()
            #expect(try renewal.decode(String.self, at: 0) != original)
            #expect(try renewal.decode(String?.self, at: 1) == "dana")
            #expect(try renewal.decode(String?.self, at: 2) == token)
            #expect(try await WebhookEventTests.events(e).filter { $0.type == "transaction.unclaimed" }.count == 1)
            // Told once: the renewal binds nothing new.
            #expect(try await Self.rows(e).count == 1)

            // An account whose id is a UUID is its own token: nothing is made for it.
            let uma = "5b0e7f3a-2c4d-4e6f-8a9b-0c1d2e3f4a5b"
            let second = try await e.control.purchase(
                PurchaseRequest(
                    appleID: try e.appleID(), bundleID: E.bundleID, productID: "pro.yearly",
                    offer: OfferRedemption(kind: .offerCode, identifier: "YEAR2026", price: 49_990)))
            try await Self.submit(e, uma, try #require(second.signedTransaction))
            #expect(try await sender.runCycle().sent == 1)
            #expect(e.control.serverWriteBacks().last?.appAccountToken == uma)
            #expect(
                try await e.service.pool.query("SELECT count(*) FROM account_tokens").single().decode(Int64.self, at: 0)
                    == 1)
        }
    }

    @Test func aCreditedConsumableIsFinishedAndLeavesTheDevicesUnfinishedTransactions() async throws {
        try await E.run { e in
            try await Self.enable(e, "{ finish_transactions: true }")
            let appleID = try e.appleID()
            // The app paid, then crashed before finishing: StoreKit hands the purchase over again on every launch.
            let coins = try await e.control.purchase(
                PurchaseRequest(appleID: appleID, bundleID: E.bundleID, productID: "coins.100"))
            let coinsID = try #require(coins.transactionID)
            let subscription = try await e.control.purchase(
                PurchaseRequest(appleID: appleID, bundleID: E.bundleID, productID: "pro.monthly"))
            await e.deliverNotifications()
            var unfinished = try e.control.unfinishedTransactions(appleID: appleID, bundleID: E.bundleID)
            #expect(unfinished.signedTransactions.count == 2)
            // Apple's notification alone credits nobody (no token, no submitter): nothing is finished yet.
            #expect(try await Self.rows(e).isEmpty)

            // On the next launch the app submits what StoreKit redelivered; the coins are credited to cora.
            for signed in unfinished.signedTransactions { try await Self.submit(e, "cora", signed) }
            #expect(
                try await Self.rows(e) == [
                    Row(
                        kind: "finish_transaction", transactionID: coinsID, account: "cora", state: "pending",
                        token: nil)
                ])
            #expect(try await Self.sender(e).runCycle().sent == 1)
            #expect(e.control.serverWriteBacks().map(\.kind) == [.finishTransaction])
            #expect(e.control.serverWriteBacks().map(\.transactionID) == [coinsID])
            // Only the subscription, which SubLedger does not finish for the app, is still handed over.
            unfinished = try e.control.unfinishedTransactions(appleID: appleID, bundleID: E.bundleID)
            #expect(unfinished.signedTransactions.count == 1)
            #expect(try await Self.rows(e).map(\.state) == ["sent"])
            #expect(subscription.transactionID != nil)
            #expect(try await e.entitlements("cora")["credits"] as? Int == 100)
        }
    }

    @Test func aWriteBackWaitsForTheServerAPIKeyAndIsSentOnceItIsConfigured() async throws {
        try await E.run { e in
            try await Self.enable(e, "{ finish_transactions: true }", withKey: false)
            let coins = try await e.control.purchase(
                PurchaseRequest(appleID: try e.appleID(), bundleID: E.bundleID, productID: "coins.100"))
            try await Self.submit(e, "cora", try #require(coins.signedTransaction))
            let sender = try Self.sender(e)
            let first = try await sender.runCycle()
            #expect(first.retrying == 1)
            #expect(try await Self.rows(e).map(\.state) == ["retry"])
            // Not due again before its backoff: the next cycle sends nothing.
            #expect(try await sender.runCycle() == .init())
            let error = try await e.service.pool.query(
                "SELECT last_error FROM store_obligations WHERE store = 'app_store'"
            ).single()
            #expect(try error.decode(String?.self, at: 0)?.hasPrefix("no_server_api_key") == true)

            try await Self.enable(e, "{ finish_transactions: true }")
            _ = await e.control.advanceClock(.init(seconds: 60))
            #expect(try await sender.runCycle().sent == 1)
            #expect(try await Self.rows(e).map(\.state) == ["sent"])
            #expect(e.control.serverWriteBacks().map(\.transactionID) == [try #require(coins.transactionID)])
        }
    }
}
