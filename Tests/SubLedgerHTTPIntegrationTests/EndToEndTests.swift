import AppStore
import AppStoreSimulator
import AppStoreStore
import CatalogFile
import Foundation
import SubLedgerCore
import SubLedgerHTTP
import SubLedgerStore
import SubLedgerTestSupport
import SubLedgerUseCases
import Testing

/// The whole system over real HTTP: SubLedger on PostgreSQL, appstore-sim as Apple.
@Suite struct EndToEndTests {
    typealias E = EndToEndHarness

    /// Milliseconds since 1970 as the API writes times.
    static func iso(_ milliseconds: Int64?) -> String? {
        milliseconds.map { RFC3339.format(Instant(millisecondsSince1970: $0)) }
    }

    static func expiry(of result: ActionResult) throws -> Int64? {
        guard let signed = result.signedTransaction else { return nil }
        let payload = try CompactJWS(signed).payload
        return try JSONDecoder().decode(JWSTransactionDecodedPayload.self, from: payload).expiresDate
    }

    /// The documents' flow: order → purchase → receipt → verification → entitlement.
    @Test func orderPurchaseReceiptGrantsTheEntitlement() async throws {
        try await E.run { e in
            let order = try await e.client.call(
                .post, "/v1/orders", key: e.key, json: ["account_id": "alice", "product_id": "pro.monthly"])
            let token = try #require(order.json["app_account_token"] as? String)
            let bought = try await e.control.purchase(
                PurchaseRequest(
                    appleID: try e.appleID(), bundleID: E.bundleID, productID: "pro.monthly", appAccountToken: token))
            let transactionID = try #require(bought.transactionID)

            let answer = try await e.submitReceipt(
                bought.receiptData, account: "alice", extra: ["order_id": token, "transaction_id": transactionID])
            #expect(answer.status == .ok)
            #expect(answer.json.results[transactionID] == "applied")
            #expect((answer.json["client_transaction"] as? [String: Any])?["found"] as? Bool == true)
            #expect(answer.json.entitlementIDs == ["pro"])
            #expect(answer.json.firstExpiry == Self.iso(try Self.expiry(of: bought)))
            let app = try #require(try await e.service.catalog.app(bundleID: E.bundleID))
            #expect(try await e.service.store.order(try OrderID(token), app: app)?.fulfilledBy == transactionID)
        }
    }

    /// A renewal arrives by notification and extends the entitlement; duplicate deliveries change nothing; a
    /// refund notification revokes access.
    @Test func renewalAndRefundArriveByNotification() async throws {
        try await E.run { e in
            _ = await e.control.updateNotificationSettings(.init(duplicate: true))
            let bought = try await e.control.purchase(
                PurchaseRequest(appleID: try e.appleID(), bundleID: E.bundleID, productID: "pro.monthly"))
            _ = try await e.submitReceipt(bought.receiptData, account: "bob")
            let original = try #require(bought.originalTransactionID)

            let renewed = try await e.control.renew(original)
            await e.deliverNotifications()
            let afterRenewal = try await e.entitlements("bob")
            #expect(afterRenewal.entitlementIDs == ["pro"])
            #expect(afterRenewal.firstExpiry == Self.iso(try Self.expiry(of: renewed)))
            // Every notification was delivered twice; each is stored and applied once.
            let rows = try await e.service.pool.query(
                "SELECT count(*), count(DISTINCT notification_id) FROM notifications"
            ).single()
            #expect(try rows.decode(Int64.self, at: 0) == rows.decode(Int64.self, at: 1))
            let extends = try await e.service.pool.query("SELECT count(*) FROM ledger_entries WHERE kind = 'extend'")
                .single()
            #expect(try extends.decode(Int64.self, at: 0) == 1)

            _ = try await e.control.refund(try #require(renewed.transactionID))
            await e.deliverNotifications()
            #expect(try await e.entitlements("bob").entitlementIDs.isEmpty)
        }
    }

    /// Apple's StoreKit 2 renewal info states what the next renewal costs; the subscription shows it, and a later
    /// receipt (whose `pending_renewal_info` has no price) does not erase it.
    @Test func theNextRenewalsPriceFromTheSignedRenewalInfoIsShownOnTheSubscription() async throws {
        try await E.run { e in
            let bought = try await e.control.purchase(
                PurchaseRequest(appleID: try e.appleID(), bundleID: E.bundleID, productID: "pro.monthly"))
            await e.deliverNotifications()
            // The receipt's renewal state is observed when it is verified: a minute after the notification's.
            _ = await e.control.advanceClock(.init(seconds: 60))
            _ = try await e.submitReceipt(bought.receiptData, account: "rhea")
            let answer = try await e.client.call(.get, "/v1/accounts/rhea/subscriptions", key: e.key)
            #expect(answer.status == .ok)
            let subscription = try #require((answer.json["subscriptions"] as? [[String: Any]])?.first)
            #expect(subscription["renewal_price"] as? String == "9.990")
            #expect(subscription["renewal_currency"] as? String == "USD")
            let stored = try await e.service.pool.query(
                """
                SELECT renewal_info->>'renewalPrice', renewal_info->>'currency' FROM chains WHERE
                    original_transaction_id = \(try #require(bought.originalTransactionID))
                """
            ).single()
            #expect(try stored.decode(String?.self, at: 0) == "9990")
            #expect(try stored.decode(String?.self, at: 1) == "USD")
        }
    }

    /// Story 1: A's renewal uploaded while B is signed in, A still auto-renewing → A. Story 2: A turned
    /// auto-renew off and lapsed, B bought on the same Apple ID → B; A's later upload of B's renewal → B.
    @Test func bothOwnershipStoriesFromTheDocuments() async throws {
        try await E.run { e in
            // Notifications would also bring these renewals to the owner; the stories are about uploads.
            await e.loseNotifications()
            let phone = try e.appleID()
            let bought = try await e.control.purchase(
                PurchaseRequest(appleID: phone, bundleID: E.bundleID, productID: "pro.monthly"))
            _ = try await e.submitReceipt(bought.receiptData, account: "anna")
            let original = try #require(bought.originalTransactionID)
            let renewal = try await e.control.renew(original)
            let renewalID = try #require(renewal.transactionID)
            let byBen = try await e.submitReceipt(renewal.receiptData, account: "ben")
            #expect(byBen.json.results[renewalID] == "belongs_to_another_account")
            #expect(byBen.json.entitlementIDs.isEmpty)
            #expect(try await e.entitlements("anna").firstExpiry == Self.iso(try Self.expiry(of: renewal)))

            // Story 2 on a second phone.
            let second = try e.appleID()
            let first = try await e.control.purchase(
                PurchaseRequest(appleID: second, bundleID: E.bundleID, productID: "pro.monthly"))
            _ = try await e.submitReceipt(first.receiptData, account: "cleo")
            let chain = try #require(first.originalTransactionID)
            _ = try await e.control.setAutoRenew(chain, enabled: false)
            _ = await e.control.advanceClock(.init(days: 35))
            let resubscribed = try await e.control.purchase(
                PurchaseRequest(appleID: second, bundleID: E.bundleID, productID: "pro.monthly"))
            #expect(resubscribed.originalTransactionID == chain)
            let byDan = try await e.submitReceipt(resubscribed.receiptData, account: "dan")
            #expect(byDan.json.results[try #require(resubscribed.transactionID)] == "applied")
            #expect(byDan.json.entitlementIDs == ["pro"])
            #expect(try await e.entitlements("cleo").entitlementIDs.isEmpty)

            let dansRenewal = try await e.control.renew(chain)
            let byCleo = try await e.submitReceipt(dansRenewal.receiptData, account: "cleo")
            #expect(byCleo.json.results[try #require(dansRenewal.transactionID)] == "belongs_to_another_account")
            #expect(try await e.entitlements("dan").firstExpiry == Self.iso(try Self.expiry(of: dansRenewal)))
            #expect(try await e.entitlements("cleo").entitlementIDs.isEmpty)
        }
    }

    /// Story 2's twin of the Google Play lineage story: after dan's re-signup moved the chain to him, cleo submits
    /// what her phone kept from before: her old receipt and her old StoreKit 2 transaction. The rule is about the
    /// chain's current state, not what one input carries: dan keeps the chain, also once his period renewed at Apple
    /// unheard by SubLedger (the signed transaction alone would make it look lapsed; the chain is read again from the
    /// Server API before the rule decides).
    @Test func thePreviousOwnersOldReceiptAndTransactionLeaveTheChainWithTheNewOwner() async throws {
        try await E.run { e in
            await e.loseNotifications()
            try await e.giveTheAppTheSimulatorsServerAPIKey()
            let phone = try e.appleID()
            let first = try await e.control.purchase(
                PurchaseRequest(appleID: phone, bundleID: E.bundleID, productID: "pro.monthly"))
            let oldSigned = try #require(first.signedTransaction)
            _ = try await e.submitReceipt(first.receiptData, account: "cleo")
            let chain = try #require(first.originalTransactionID)
            _ = try await e.control.setAutoRenew(chain, enabled: false)
            _ = await e.control.advanceClock(.init(days: 35))
            let resubscribed = try await e.control.purchase(
                PurchaseRequest(appleID: phone, bundleID: E.bundleID, productID: "pro.monthly"))
            #expect(resubscribed.originalTransactionID == chain)
            let byDan = try await e.submitReceipt(resubscribed.receiptData, account: "dan")
            #expect(byDan.json.results[try #require(resubscribed.transactionID)] == "applied")

            func owner() async throws -> String? {
                try await e.service.pool.query(
                    "SELECT owner_account_id FROM chains WHERE original_transaction_id = \(chain)"
                ).first?.decode(String?.self, at: 0)
            }
            func transfers() async throws -> Int64 {
                try await e.service.pool.query(
                    "SELECT count(*) FROM ledger_entries WHERE kind = 'transfer_in' AND original_transaction_id = \(chain)"
                ).single().decode(Int64.self, at: 0)
            }
            // The signed transaction alone first, then the receipt (whose verifyReceipt answer is Apple's current
            // state, so it must not be what keeps the chain with dan).
            func cleoSubmitsWhatHerPhoneKept() async throws {
                let signed = try await e.client.call(
                    .post, "/v1/transactions", key: e.key,
                    json: ["account_id": "cleo", "signed_transaction": oldSigned])
                #expect(signed.status == .ok)
                #expect(signed.json.results[try #require(first.transactionID)] == "belongs_to_another_account")
                #expect(try await owner() == "dan")
                let receipt = try await e.submitReceipt(first.receiptData, account: "cleo")
                #expect(receipt.status == .ok)
                #expect(receipt.json.results[try #require(first.transactionID)] == "belongs_to_another_account")
                #expect(try await owner() == "dan")
                #expect(try await e.entitlements("cleo").entitlementIDs.isEmpty)
                #expect(try await e.entitlements("dan").entitlementIDs == ["pro"])
                #expect(try await transfers() == 1)
            }

            try await cleoSubmitsWhatHerPhoneKept()
            // Dan's month renews at Apple; the notification is lost, so SubLedger last knew a period that has ended.
            _ = await e.control.advanceClock(.init(days: 32))
            try await cleoSubmitsWhatHerPhoneKept()
        }
    }

    /// App Review: a sandbox receipt sent to production answers 21007 and is verified in the sandbox.
    @Test func aSandboxReceiptSentToProductionIsAccepted() async throws {
        try await E.run { e in
            let bought = try await e.control.purchase(
                PurchaseRequest(appleID: try e.appleID(.sandbox), bundleID: E.bundleID, productID: "pro.monthly"))
            let answer = try await e.submitReceipt(bought.receiptData, account: "reviewer")
            #expect(answer.status == .ok)
            #expect(answer.json["environment"] as? String == "Sandbox")
            #expect(answer.json.entitlementIDs == ["pro"])
        }
    }

    /// Apple down: 503 with Retry-After, the receipt kept; the renewal job credits it once Apple answers,
    /// though the client never retries.
    @Test func appleDownAnswers503AndTheJobCreditsThePurchaseLater() async throws {
        try await E.run { e in
            let bought = try await e.control.purchase(
                PurchaseRequest(appleID: try e.appleID(), bundleID: E.bundleID, productID: "pro.monthly"))
            e.control.setFault(FaultRule(kind: .http503, rate: 1), for: .verifyReceipt)
            let answer = try await e.submitReceipt(bought.receiptData, account: "erik")
            #expect(answer.status == .serviceUnavailable)
            #expect(answer.headers[.retryAfter] != nil)
            #expect(try await e.entitlements("erik").entitlementIDs.isEmpty)

            e.control.clearFaults()
            _ = await e.control.advanceClock(.init(seconds: 31))
            let report = try await Self.poller(e).runCycle()
            #expect(report.credited == 1)
            #expect(try await e.entitlements("erik").entitlementIDs == ["pro"])
        }
    }

    static func poller(_ e: EndToEndHarness) throws -> RenewalPoller {
        let gateway = try e.sim.appleGateway()
        let now: @Sendable () -> Instant = { Instant(millisecondsSince1970: e.control.clock().now) }
        var configuration = RenewalPoller.Configuration(worker: "e2e")
        configuration.requestsPerSecond = 1_000
        configuration.once = true
        return RenewalPoller(
            configuration: configuration, queue: PollQueue(pool: e.service.pool), store: e.service.store,
            catalog: e.service.catalog,
            ingestion: Ingestion(
                store: e.service.store, catalog: e.service.catalog, apple: gateway, logger: TestDatabase.logger,
                now: now),
            logger: TestDatabase.logger, now: now)
    }

    /// With notifications lost, polling finds the renewal, the expiry, billing retry → grace → recovery, and
    /// a refund.
    @Test func pollingFindsRenewalsExpiriesGraceRecoveryAndRefunds() async throws {
        try await E.run { e in
            await e.loseNotifications()
            let poller = try Self.poller(e)
            let renewing = try await e.control.purchase(
                PurchaseRequest(appleID: try e.appleID(), bundleID: E.bundleID, productID: "pro.monthly"))
            _ = try await e.submitReceipt(renewing.receiptData, account: "rita")
            let lapsing = try await e.control.purchase(
                PurchaseRequest(appleID: try e.appleID(), bundleID: E.bundleID, productID: "pro.monthly"))
            _ = try await e.submitReceipt(lapsing.receiptData, account: "lars")
            _ = try await e.control.setAutoRenew(try #require(lapsing.originalTransactionID), enabled: false)
            let failing = try await e.control.purchase(
                PurchaseRequest(appleID: try e.appleID(), bundleID: E.bundleID, productID: "pro.monthly"))
            _ = try await e.submitReceipt(failing.receiptData, account: "gina")
            _ = try await e.control.failBilling(try #require(failing.originalTransactionID))

            // Nothing is due in the middle of the first period.
            #expect(try await poller.runCycle().checked == 0)

            // Past the first period's end: rita renewed, lars expired, gina is in her grace period.
            _ = await e.control.advanceClock(.init(days: 32))
            let firstCycle = try await poller.runCycle()
            #expect(firstCycle.renewed == 1)
            #expect(firstCycle.expired == 1)
            #expect(try await e.entitlements("rita").entitlementIDs == ["pro"])
            #expect(try await e.entitlements("lars").entitlementIDs.isEmpty)
            let gina = try await e.client.call(.get, "/v1/accounts/gina/entitlements", key: e.key).json
            #expect((gina["entitlements"] as? [[String: Any]])?.first?["state"] as? String == "grace_period")

            // Gina's billing recovers; the job finds the recovery while she is in grace.
            _ = try await e.control.recoverBilling(try #require(failing.originalTransactionID))
            _ = await e.control.advanceClock(.init(hours: 2))
            let recovery = try await poller.runCycle()
            #expect(recovery.renewed >= 1)
            let recovered = try await e.client.call(.get, "/v1/accounts/gina/entitlements", key: e.key).json
            #expect((recovered["entitlements"] as? [[String: Any]])?.first?["state"] as? String == "active")

            // Rita's renewal is refunded; when the chain is next due the job finds the refund.
            let app = try #require(try await e.service.catalog.app(bundleID: E.bundleID))
            let ritasOriginal = try #require(renewing.originalTransactionID)
            let ritasChain = try await e.service.store.chain(
                ChainKey(environment: .production, chainID: ritasOriginal), app: app)
            let latest = try #require(ritasChain?.transactions.last?.transactionID)
            _ = try await e.control.setAutoRenew(ritasOriginal, enabled: false)
            _ = try await e.control.refund(latest)
            _ = await e.control.advanceClock(.init(days: 29))
            let refundCycle = try await poller.runCycle()
            #expect(refundCycle.revoked == 1)
            #expect(try await e.entitlements("rita").entitlementIDs.isEmpty)
        }
    }

    /// A StoreKit 2 chain is checked through the App Store Server API (Get All Subscription Statuses) with
    /// the app's API key; the renewal Apple reports there is applied to the owner.
    @Test func pollingChecksStoreKit2ChainsThroughTheServerAPI() async throws {
        try await E.run { e in
            await e.loseNotifications()
            try await e.giveTheAppTheSimulatorsServerAPIKey()

            let bought = try await e.control.purchase(
                PurchaseRequest(appleID: try e.appleID(), bundleID: E.bundleID, productID: "pro.monthly"))
            let signed = try #require(bought.signedTransaction)
            let submitted = try await e.client.call(
                .post, "/v1/transactions", key: e.key, json: ["account_id": "sara", "signed_transaction": signed])
            #expect(submitted.json.entitlementIDs == ["pro"])

            _ = await e.control.advanceClock(.init(days: 32))  // Apple renews; the notification is lost
            let report = try await Self.poller(e).runCycle()
            #expect(report.checked == 1)
            #expect(report.renewed == 1)
            #expect(report.skipped == 0)
            let entitlements = try await e.entitlements("sara")
            #expect(entitlements.entitlementIDs == ["pro"])
            let refreshed = try await e.service.pool.query(
                "SELECT count(*) FROM transactions WHERE source = 'server_api'"
            ).single()
            #expect(try refreshed.decode(Int64.self, at: 0) == 1)
        }
    }
}
