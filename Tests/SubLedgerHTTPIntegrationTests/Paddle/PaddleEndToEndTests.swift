import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import Paddle
import PaddleStore
import PostgresLibPQ
import SubLedgerCore
import SubLedgerReports
import SubLedgerStore
import SubLedgerTestSupport
import SubLedgerUseCases
import Testing

/// Paddle, the fourth store, end to end: SubLedger's checkout, paddle-sim's checkout paid by the customer, Paddle's
/// signed notifications to a live server, the subscription read back from paddle-sim's API, PostgreSQL. Renewals,
/// refunds and chargebacks come from paddle-sim's clock, which the server's clock follows.
@Suite struct PaddleEndToEndTests {
    @Test func aCheckoutCreditsItsAccountAndItsRenewalsStayTheirs() async throws {
        try await PaddleHarness.run { h in
            let bought = try await h.buy("alice")
            let subscription = try #require(bought.subscription)
            #expect(try await h.entitlements("alice") == ["pro"])
            #expect(try await h.owner(of: subscription) == "alice")
            #expect(try await h.transactions(of: subscription) == ["\(bought.transaction) false"])

            // A month on: Paddle bills the renewal; it is the owner's.
            await h.advance(days: 31)
            let renewed = try await h.transactions(of: subscription)
            #expect(renewed.count == 2)
            #expect(try await h.owner(of: subscription) == "alice")
            #expect(try await h.entitlements("alice") == ["pro"])

            // Each notification stored once and applied; the events SubLedger does not follow are kept too.
            let stored = try await h.storedEvents()
            #expect(stored.contains("transaction.completed applied"))
            #expect(stored.allSatisfy { $0.hasSuffix(" applied") })
        }
    }

    @Test func aRedeliveredNotificationChangesNothing() async throws {
        try await PaddleHarness.run { h in
            let bought = try await h.buy("bob")
            let subscription = try #require(bought.subscription)
            let entries = try await h.ledgerEntries()
            let notifications = try #require(
                try await PaddleHarness.paddle(
                    h.sim, .GET, "/notifications?notification_setting_id=\(h.setting)") as? [[String: Any]])
            #expect(!notifications.isEmpty)
            for notification in notifications {
                let id = try #require(notification["id"] as? String)
                try await PaddleHarness.paddle(h.sim, .POST, "/notifications/\(id)/replay", [:])
            }
            #expect(try await h.ledgerEntries() == entries)
            #expect(try await h.owner(of: subscription) == "bob")
        }
    }

    @Test func aRefundAndAChargebackRevokeWhatTheyTookBack() async throws {
        try await PaddleHarness.run { h in
            let bought = try await h.buy("carol")
            let subscription = try #require(bought.subscription)
            // A full refund, approved ten minutes later on Paddle's clock.
            try await PaddleHarness.paddle(
                h.sim, .POST, "/adjustments",
                ["action": "refund", "reason": "asked", "transaction_id": bought.transaction, "type": "full"])
            #expect(try await h.entitlements("carol") == ["pro"])
            await h.advance(seconds: 11 * 60)
            #expect(try await h.transactions(of: subscription) == ["\(bought.transaction) true"])
            #expect(try await h.entitlements("carol") == [])

            // A one-time purchase taken back by the customer's bank.
            let lifetime = try await h.buy("dave", h.lifetime)
            #expect(lifetime.subscription == nil)
            #expect(try await h.entitlements("dave") == ["lifetime"])
            _ = try await h.sim.control.chargeback(lifetime.transaction, amount: nil)
            #expect(try await h.transactions(of: lifetime.transaction) == ["\(lifetime.transaction) true"])
            #expect(try await h.entitlements("dave") == [])
        }
    }

    @Test func theEventsListAppliesWhatNoNotificationBrought() async throws {
        try await PaddleHarness.run { h in
            try await h.setNotifications(active: false)
            let bought = try await h.buy("erin")
            let subscription = try #require(bought.subscription)
            #expect(try await h.entitlements("erin") == [])

            let reconciliation = PaddleEventsReconciliation(
                configuration: .init(worker: "test"), port: h.port,
                cursors: StoreEventCursors(pool: h.pool, store: .paddle),
                catalog: h.catalog)
            let report = try await reconciliation.runCycle()
            #expect(report.apps == 1 && report.applied > 0 && report.failed == 0)
            #expect(try await h.owner(of: subscription) == "erin")
            #expect(try await h.entitlements("erin") == ["pro"])
            // A second pass right away: the cursor is leased per interval, and nothing is applied twice.
            let entries = try await h.ledgerEntries()
            _ = try await reconciliation.runCycle()
            #expect(try await h.ledgerEntries() == entries)
        }
    }

    @Test func revenueIsWhatPaddleStates() async throws {
        try await PaddleHarness.run { h in
            let bought = try await h.buy("frank")
            let raw = try #require(
                try await PaddleHarness.paddle(h.sim, .GET, "/transactions/\(bought.transaction)") as? [String: Any])
            let totals = try #require((raw["details"] as? [String: Any])?["totals"] as? [String: Any])
            func milli(_ key: String) throws -> Int64 {
                let text = try #require(totals[key] as? String)
                return try #require(Int64(text)) * 10
            }
            let stored = try #require(
                try await h.pool.query(
                    """
                    SELECT price_milliunits, (payload -> 'transaction' ->> 'tax')::bigint,
                        (payload -> 'transaction' ->> 'processingFee')::bigint, currency
                    FROM transactions WHERE transaction_id = \(bought.transaction)
                    """
                ).first)
            #expect(try stored.decode(Int64?.self, at: 0) == milli("total"))
            #expect(try stored.decode(Int64?.self, at: 1) == milli("tax"))
            #expect(try stored.decode(Int64?.self, at: 2) == milli("fee"))
            #expect(try stored.decode(String?.self, at: 3) == "USD")

            let admin = try await APIKeys(store: APIKeyStore(pool: h.pool)).create(bundleID: nil, name: "ops").secret
            _ = try await ReportProjector(pool: h.pool).projectAll()
            let revenue = try await h.client.call(
                .get, "/v1/admin/reports/revenue?from=2025-11-01&to=2026-01-01&by=month", key: admin)
            #expect(revenue.status == .ok, "\(revenue.json)")
            let amounts = (revenue.json["totals"] as? [[String: Any]])?.first?["amounts"] as? [String: Any] ?? [:]
            #expect((amounts["gross_milli"] as? Int).map(Int64.init) == (try milli("total")))
            #expect(amounts["commission_milli"] as? Int == 0)
            #expect((amounts["processing_fee_milli"] as? Int).map(Int64.init) == (try milli("fee")))
            #expect(amounts["sales"] as? Int == 1)
        }
    }

    /// A seller paid out in EUR for sales in USD: the revenue report's payouts are Paddle's own conversion; a
    /// partial refund gives back the part of Paddle's fee it states, and a chargeback (Paddle keeps its fee) none.
    @Test func revenueInThePayoutCurrencyAndTheFeeARefundGivesBack() async throws {
        try await PaddleHarness.run(payoutCurrency: "EUR", payoutRates: ["USD": 920_000]) { h in
            func object(_ path: String) async throws -> [String: Any] {
                try #require(try await PaddleHarness.paddle(h.sim, .GET, path) as? [String: Any])
            }
            func minor(_ object: [String: Any]?, _ key: String) throws -> Int64 {
                let text = try #require(object?[key] as? String)
                return try #require(Int64(text))
            }
            let bought = try await h.buy("gina")
            let sale = try await object("/transactions/\(bought.transaction)")
            let details = sale["details"] as? [String: Any]
            let totals = details?["totals"] as? [String: Any]
            let payout = details?["payout_totals"] as? [String: Any]
            #expect(payout?["currency_code"] as? String == "EUR")
            let item = try #require(((details?["line_items"] as? [[String: Any]])?.first)?["id"] as? String)

            // A refund of 3.00 of the 10.99 paid, approved ten minutes later.
            let refund = try #require(
                try await PaddleHarness.paddle(
                    h.sim, .POST, "/adjustments",
                    [
                        "action": "refund", "reason": "asked", "transaction_id": bought.transaction, "type": "partial",
                        "items": [["item_id": item, "type": "partial", "amount": "300"]],
                    ]) as? [String: Any])
            await h.advance(seconds: 11 * 60)
            let adjustments = try #require(
                try await PaddleHarness.paddle(h.sim, .GET, "/adjustments?transaction_id=\(bought.transaction)")
                    as? [[String: Any]])
            let adjustment = try #require(adjustments.first { $0["id"] as? String == refund["id"] as? String })
            #expect(adjustment["status"] as? String == "approved")
            let returnedFee = try minor(adjustment["totals"] as? [String: Any], "fee")
            #expect(returnedFee > 0)
            let refundPayout = adjustment["payout_totals"] as? [String: Any]
            #expect(refundPayout?["currency_code"] as? String == "EUR")
            #expect(try await h.entitlements("gina") == ["pro"])

            // A one-time purchase taken back by the bank: Paddle keeps its fee.
            let lifetime = try await h.buy("hank", h.lifetime)
            let lifetimeSale = try await object("/transactions/\(lifetime.transaction)")
            let lifetimeDetails = lifetimeSale["details"] as? [String: Any]
            let lifetimeTotals = lifetimeDetails?["totals"] as? [String: Any]
            let lifetimePayout = lifetimeDetails?["payout_totals"] as? [String: Any]
            _ = try await h.sim.control.chargeback(lifetime.transaction, amount: nil)
            #expect(try await h.entitlements("hank") == [])
            let chargebacks = try #require(
                try await PaddleHarness.paddle(h.sim, .GET, "/adjustments?transaction_id=\(lifetime.transaction)")
                    as? [[String: Any]])
            let chargebackPayout = try #require(chargebacks.first?["payout_totals"] as? [String: Any])

            let admin = try await APIKeys(store: APIKeyStore(pool: h.pool)).create(bundleID: nil, name: "ops").secret
            _ = try await ReportProjector(pool: h.pool).projectAll()
            let revenue = try await h.client.call(
                .get, "/v1/admin/reports/revenue?from=2025-11-01&to=2026-01-01&by=month", key: admin)
            #expect(revenue.status == .ok, "\(revenue.json)")
            let amounts = (revenue.json["totals"] as? [[String: Any]])?.first?["amounts"] as? [String: Any] ?? [:]
            // Both fees counted on the sales; the refund gave its share back, the chargeback none.
            let fees = try minor(totals, "fee") + minor(lifetimeTotals, "fee")
            #expect((amounts["processing_fee_milli"] as? Int).map(Int64.init) == (fees - returnedFee) * 10)
            #expect(amounts["sales"] as? Int == 2)
            #expect(amounts["refunds"] as? Int == 2)

            let payouts = try #require(revenue.json["payout_totals"] as? [[String: Any]])
            #expect(payouts.count == 1)
            let euros = try #require(payouts.first)
            #expect(euros["currency"] as? String == "EUR")
            let earned = try minor(payout, "earnings") + minor(lifetimePayout, "earnings")
            let takenBack = try minor(refundPayout, "earnings") + minor(chargebackPayout, "earnings")
            #expect((euros["earnings_milli"] as? Int).map(Int64.init) == earned * 10)
            let payoutFees = try minor(payout, "fee") + minor(lifetimePayout, "fee")
            #expect((euros["fee_milli"] as? Int).map(Int64.init) == payoutFees * 10)
            #expect((euros["refunded_earnings_milli"] as? Int).map(Int64.init) == takenBack * 10)
            #expect((euros["net_earnings_milli"] as? Int).map(Int64.init) == (earned - takenBack) * 10)
            #expect(euros["sales"] as? Int == 2)
            #expect(euros["refunds"] as? Int == 2)
            // The chargeback kept Paddle's fee: it took back the whole subtotal in the payout currency.
            #expect(try minor(chargebackPayout, "earnings") == minor(lifetimePayout, "subtotal"))
        }
    }

    @Test func anUnsignedOrForgedNotificationIsRefused() async throws {
        try await PaddleHarness.run { h in
            let body = Data(#"{"event_id":"evt_01","event_type":"transaction.completed"}"#.utf8)
            for signature in [
                nil, "ts=1;h1=00",
                PaddleWebhookSignature.header(
                    body: body, timestamp: Instant.systemNow().millisecondsSince1970 / 1000,
                    secretKeys: ["pdl_ntfset_not_the_apps"]),
            ] {
                var headers: HTTPFields = [.contentType: "application/json"]
                if let signature { headers[HTTPField.Name("Paddle-Signature")!] = signature }
                let response = try await h.client.executeRequest(
                    uri: "/v1/notifications/paddle", method: .post, headers: headers, body: ByteBuffer(bytes: body))
                #expect(response.status == .unauthorized)
            }
            #expect(try await h.storedEvents().isEmpty)
        }
    }

    @Test func aPaddleSubscriberIsImportedFromAFileOfSubscriptionIDs() async throws {
        try await PaddleHarness.run { h in
            try await h.setNotifications(active: false)
            let bought = try await h.buy("grace")
            let subscription = try #require(bought.subscription)
            let csv = "account_id,paddle_subscription_id\ngrace,\(subscription)\nheidi,sub_nothere\n"
            let file = try ImportFile(bytes: Array(csv.utf8))
            let app = try #require(try await h.catalog.app(bundleID: PaddleHarness.bundleID))
            let importer = try MigrationImporter(
                ledger: LedgerStore(pool: h.pool), now: { h.sim.control.now }, appStore: nil,
                subscriptionImports: [
                    .paddle: try #require(
                        PaddleRegistration(gateway: h.gateway).subscriptionImport(logger: TestDatabase.logger))
                ], app: app, configuration: .init(concurrency: 1, maximumAttempts: 2, maximumBackoff: .milliseconds(50))
            )
            let summary = try await importer.run(file, fileName: "paddle.csv")
            #expect(summary.progress.rowsOK == 1)
            #expect(summary.failures.map(\.reason.code) == ["invalid_purchase"])
            #expect(try await h.owner(of: subscription) == "grace")
            #expect(try await h.entitlements("grace") == ["pro"])
        }
    }

    @Test func supportFindsAPaddlePurchaseByItsTransactionOrSubscriptionID() async throws {
        try await PaddleHarness.run { h in
            let bought = try await h.buy("ivan")
            let subscription = try #require(bought.subscription)
            let lookup = SupportLookup(
                store: LedgerStore(pool: h.pool), catalog: h.catalog, apple: nil,
                storeIDs: PaddleRegistration.supportIDs, logger: TestDatabase.logger, now: { h.sim.control.now })
            for id in [bought.transaction, subscription] {
                let answer = try await lookup.lookUp(
                    try SupportQuery.transaction(parsing: id), bundleID: PaddleHarness.bundleID)
                #expect(answer.accountID == "ivan")
                #expect(answer.chains.map(\.originalTransactionID) == [subscription])
                #expect(answer.chains.map(\.store) == ["paddle"])
                // The admin page's search box finds it by the same id, asking the ledger alone.
                guard case .support(let found) = try await lookup.search(id) else {
                    Issue.record("the admin search found no purchase for \(id)")
                    continue
                }
                #expect(found.accountID == "ivan")
                #expect(found.chains.map(\.originalTransactionID) == [subscription])
                // Not a Stripe id, although Stripe's subscriptions are `sub_…` too: Stripe's lookup holds Stripe's.
                #expect(found.kind == .transaction, "\(id)")
            }
            // By the Paddle customer who paid (`ctm_…`, kept on the transaction) and by the transaction as a Paddle id:
            // at the lookup, and in the search box.
            let customer = try #require(
                try await h.pool.query(
                    "SELECT payload -> 'transaction' ->> 'customerID' FROM transactions WHERE transaction_id = \(bought.transaction)"
                ).single().decode(String?.self, at: 0))
            #expect(customer.hasPrefix("ctm_"))
            for (id, kind) in [(customer, "paddle_customer"), (bought.transaction, "paddle_transaction")] {
                let query = try SupportQuery.store(parsing: id, among: PaddleRegistration.supportIDs)
                #expect(query.kindName == kind)
                let answer = try await lookup.lookUp(query, bundleID: PaddleHarness.bundleID)
                #expect(answer.accountID == "ivan", "\(id)")
                #expect(answer.chains.map(\.originalTransactionID) == [subscription])
                guard case .support(let found) = try await lookup.search(id) else {
                    Issue.record("the admin search found no purchase for \(id)")
                    continue
                }
                #expect(found.chains.map(\.originalTransactionID) == [subscription])
            }
            // A customer with no purchase of this app is not found; a Stripe id is not a Paddle id.
            await #expect(throws: SupportError.self) {
                try await lookup.lookUp(
                    try SupportQuery.store(parsing: "ctm_01unknown", among: PaddleRegistration.supportIDs),
                    bundleID: PaddleHarness.bundleID)
            }
            #expect(throws: SupportError.self) {
                try SupportQuery.store(parsing: "cus_1Nabc", among: PaddleRegistration.supportIDs)
            }
        }
    }

    @Test func theRenewalJobReadsBackARenewalNoNotificationBrought() async throws {
        try await PaddleHarness.run { h in
            let bought = try await h.buy("judy")
            let subscription = try #require(bought.subscription)
            try await h.setNotifications(active: false)
            await h.advance(days: 31)
            #expect(try await h.transactions(of: subscription).count == 1)

            let job = RenewalPoller(
                configuration: .init(worker: "paddle-renewals"), queue: PollQueue(pool: h.pool),
                store: LedgerStore(pool: h.pool), catalog: h.catalog,
                ports: StorePorts(ledger: LedgerStore(pool: h.pool), registered: [h.port]), logger: TestDatabase.logger,
                now: { h.sim.control.now })
            let report = try await job.runCycle()
            #expect(report.renewed == 1 && report.errors == 0, "\(report)")
            #expect(try await h.transactions(of: subscription).count == 2)
            #expect(try await h.owner(of: subscription) == "judy")
            #expect(try await h.entitlements("judy") == ["pro"])
        }
    }
}
