import Foundation
import HTTPTypes
import NIOCore
import PostgresLibPQ
import Stripe
import StripeClients
import StripeSimulator
import StripeStore
import SubLedgerCore
import SubLedgerStore
import SubLedgerUseCases
import Testing

/// Web purchases end to end: SubLedger's checkout, stripe-sim's Checkout Session paid by the customer, Stripe's
/// signed webhooks to a live server, the subscription read back from stripe-sim's API, PostgreSQL. Renewals come
/// from stripe-sim's clock, which the server's clock follows.
@Suite struct StripeEndToEndTests {
    struct Context: Sendable {
        let sim: StripeSimulator
        let h: StripeHarness
        let price: String

        /// Starts a checkout for `account` through SubLedger; the session's id.
        func checkout(_ account: String, trialDays: Int? = nil) async throws -> String {
            var json: [String: Any] = [
                "account_id": account, "product_id": StripeHarness.product, "price": price,
                "success_url": "https://example.com/paid?session={CHECKOUT_SESSION_ID}",
            ]
            if let trialDays { json["trial_period_days"] = trialDays }
            let answer = try await h.client.call(
                .post, "/v1/checkout/stripe", key: h.key,
                raw: ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: json)))
            #expect(answer.status == .created, "\(answer.json)")
            #expect((answer.json["url"] as? String)?.hasPrefix(sim.baseURL) == true)
            return try #require(answer.json["checkout_session_id"] as? String)
        }

        /// A purchase by `account`: checkout, then the customer pays; the subscription.
        func buy(_ account: String, trialDays: Int? = nil) async throws -> String {
            try await sim.control.completeCheckout(try await checkout(account, trialDays: trialDays))
        }

        func owner(of subscription: String) async throws -> String? {
            try await h.pool.query(
                "SELECT owner_account_id FROM chains WHERE original_transaction_id = \(subscription)"
            ).first?.decode(String?.self, at: 0)
        }

        func transactions(of subscription: String) async throws -> [String] {
            try await h.pool.query(
                """
                SELECT transaction_id || ' ' || product_id || ' ' || (revocation_date IS NOT NULL)::text
                FROM transactions WHERE original_transaction_id = \(subscription) ORDER BY purchase_date, transaction_id
                """
            ).map { try $0.decode(String.self, at: 0) }
        }

        func ledgerEntries() async throws -> Int64 {
            try await h.pool.query("SELECT count(*) FROM ledger_entries").single().decode(Int64.self, at: 0)
        }

        func advance(days: Int64) async { await sim.control.advance(seconds: days * 86_400) }
    }

    static func run(_ body: @Sendable (Context) async throws -> Void) async throws {
        let sim = try await StripeSimulator.start(
            .init(
                startTime: Instant(millisecondsSince1970: 1_764_201_600_000), secretKey: StripeHarness.secretKey,
                deliveryTimeout: .seconds(120)))
        do {
            try await StripeHarness.run(stripeURL: sim.baseURL, now: { sim.control.now }) { h in
                guard let port = h.client.port else { throw StripeSimulatorError.noPort }
                sim.control.addWebhookEndpoint(
                    url: "http://127.0.0.1:\(port)/v1/notifications/stripe", secret: StripeHarness.webhookSecret)
                _ = try await sim.control.createProduct(name: "Pro", id: StripeHarness.product)
                _ = try await sim.control.createProduct(name: "Max", id: "prod_webmax")
                let price = try await sim.control.createPrice(product: StripeHarness.product, unitAmount: 999)
                try await body(Context(sim: sim, h: h, price: price))
            }
        } catch {
            try? await sim.shutdown()
            throw error
        }
        try await sim.shutdown()
    }

    enum StripeSimulatorError: Error { case noPort }

    @Test func aWebPurchaseRenewsAndAFullRefundRevokesIt() async throws {
        try await Self.run { c in
            let subscription = try await c.buy("alice")
            #expect(try await c.h.entitlements("alice") == ["pro"])
            #expect(try await c.owner(of: subscription) == "alice")
            #expect(c.sim.control.deliveries().allSatisfy { $0.delivered })
            let first = try await c.transactions(of: subscription)
            #expect(first.count == 1)

            // A month on, Stripe renews: the renewal's invoice is the chain's second transaction.
            await c.advance(days: 31)
            #expect(try await c.transactions(of: subscription).count == 2)
            #expect(try await c.h.entitlements("alice") == ["pro"])

            // The renewal is refunded in full: what it paid for is revoked.
            let charge = try #require(c.sim.control.latestCharge(ofSubscription: subscription))
            try await c.sim.control.refund(charge: charge)
            #expect(try await c.transactions(of: subscription).last?.hasSuffix(" true") == true)
            #expect(try await c.h.entitlements("alice") == [])
        }
    }

    @Test func aFirstPurchaseIsGrantedAndItsRenewalsExtend() async throws {
        try await Self.run { c in
            let subscription = try await c.buy("alice")
            await c.advance(days: 31)
            #expect(try await c.transactions(of: subscription).count == 2)
            // As an App Store or Google Play chain: the first transaction is a purchase, the next one a renewal.
            let entries = try await c.h.pool.query(
                """
                SELECT kind || ' ' || coalesce(reason, '') FROM ledger_entries
                WHERE original_transaction_id = \(subscription) ORDER BY effective_at, entry_id
                """
            ).map { try $0.decode(String.self, at: 0) }
            #expect(entries == ["grant purchase", "extend renewal"])
            let events = try await c.h.pool.query(
                """
                SELECT event_type, body FROM webhook_events
                WHERE account_id = 'alice' AND event_type LIKE 'entitlement.%' ORDER BY account_sequence
                """
            ).map { (try $0.decode(String.self, at: 0), try $0.decode(String.self, at: 1)) }
            #expect(events.map(\.0) == ["entitlement.granted", "entitlement.extended"])
            #expect(events.first?.1.contains(#""reason":"purchase""#) == true)
            #expect(events.last?.1.contains(#""reason":"renewal""#) == true)
        }
    }

    @Test func aTrialIsTheGrantedPurchaseAndItsFirstPaymentARenewal() async throws {
        try await Self.run { c in
            let subscription = try await c.buy("alice", trialDays: 7)
            await c.advance(days: 8)
            #expect(try await c.transactions(of: subscription).count == 2)
            let entries = try await c.h.pool.query(
                """
                SELECT kind || ' ' || coalesce(reason, '') FROM ledger_entries
                WHERE original_transaction_id = \(subscription) ORDER BY effective_at, entry_id
                """
            ).map { try $0.decode(String.self, at: 0) }
            #expect(entries == ["grant purchase", "extend renewal"])
        }
    }

    @Test func aTestClockRenewsItsCustomersSubscriptionsAndTheControlClockTheRest() async throws {
        try await Self.run { c in
            let start = c.sim.control.now.millisecondsSince1970 / 1000
            let clock = try await c.sim.control.createTestClock(frozenTime: start)
            let customer = try await c.sim.control.createCustomer(testClock: clock)
            let onClock = try await c.sim.control.createSubscription(customer: customer, price: c.price)
            let offClock = try await c.buy("alice")
            #expect(try await c.transactions(of: onClock).count == 1)

            // The control clock renews the subscription on no test clock, not the one on the test clock.
            await c.advance(days: 31)
            #expect(try await c.transactions(of: offClock).count == 2)
            #expect(try await c.transactions(of: onClock).count == 1)

            // Advancing the test clock renews its customer's subscription, read back as any renewal is.
            try await c.sim.control.advanceTestClock(clock, to: start + 31 * 86_400)
            #expect(try await c.transactions(of: onClock).count == 2)
            #expect(try await c.transactions(of: offClock).count == 2)
            let json = try #require(c.sim.control.object(clock))
            let object = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
            #expect(object["object"] as? String == "test_helpers.test_clock")
            #expect(object["status"] as? String == "ready")
            #expect((object["frozen_time"] as? Int).map(Int64.init) == start + 31 * 86_400)
            let types = c.sim.control.deliveries().map(\.type)
            let advancing = try #require(types.firstIndex(of: "test_helpers.test_clock.advancing"))
            let ready = try #require(types.firstIndex(of: "test_helpers.test_clock.ready"))
            #expect(advancing < ready)
            #expect(c.sim.control.deliveries().allSatisfy { $0.delivered })
            // Going back is refused, as Stripe refuses it.
            await #expect(throws: (any Error).self) {
                try await c.sim.control.advanceTestClock(clock, to: start)
            }
        }
    }

    @Test func aPartialRefundKeepsThePeriod() async throws {
        try await Self.run { c in
            let subscription = try await c.buy("alice")
            let charge = try #require(c.sim.control.latestCharge(ofSubscription: subscription))
            try await c.sim.control.refund(charge: charge, amount: 300)
            #expect(try await c.transactions(of: subscription).allSatisfy { $0.hasSuffix(" false") })
            #expect(try await c.h.entitlements("alice") == ["pro"])
        }
    }

    @Test func aDroppedWebhookIsFoundInTheEventsListAndAppliedOnce() async throws {
        try await Self.run { c in
            let before = c.sim.control.deliveries().count
            c.sim.control.dropNextWebhooks(1000)
            let subscription = try await c.buy("alice")
            #expect(try await c.h.entitlements("alice") == [])
            #expect(c.sim.control.deliveries().dropFirst(before).allSatisfy { $0.dropped })
            let reconciliation = StripeEventsReconciliation(
                configuration: .init(worker: "stripe-e2e"), port: c.h.port,
                cursors: StoreEventCursors(pool: c.h.pool, store: .stripe), catalog: c.h.catalog)
            let first = try await reconciliation.runCycle()
            #expect(first.apps == 1 && first.failed == 0 && first.applied > 0)
            #expect(try await c.h.entitlements("alice") == ["pro"])
            #expect(try await c.owner(of: subscription) == "alice")
            let entries = try await c.ledgerEntries()
            // Read again at once: not due; made due, nothing new is listed after the cursor.
            #expect(try await reconciliation.runCycle().apps == 0)
            try await c.h.pool.query("UPDATE store_event_cursors SET last_polled_at = NULL WHERE store = 'stripe'")
            let again = try await reconciliation.runCycle()
            #expect(again.apps == 1 && again.applied == 0)
            #expect(try await c.ledgerEntries() == entries)
        }
    }

    @Test func duplicatedAndReorderedEventsLeaveTheSameLedger() async throws {
        try await Self.run { c in
            // Every event of a purchase and a renewal is dropped, then delivered newest first, then all again.
            c.sim.control.dropNextWebhooks(1000)
            let subscription = try await c.buy("alice")
            await c.advance(days: 31)
            let client = StripeAPI(
                httpClient: .shared, secretKey: StripeHarness.secretKey, configuration: .init(baseURL: c.sim.baseURL))
            let events = try await client.events().events
            #expect(events.count > 10)
            for (_, body) in events {
                let answer = try await c.h.deliver(body, signature: StripeWebhookRefusalTests.signature(body))
                #expect(answer.status == .ok)
            }
            #expect(try await c.transactions(of: subscription).count == 2)
            #expect(try await c.h.entitlements("alice") == ["pro"])
            let entries = try await c.ledgerEntries()
            for (_, body) in events.reversed() {
                let answer = try await c.h.deliver(body, signature: StripeWebhookRefusalTests.signature(body))
                #expect(answer.json["status"] as? String == "duplicate")
            }
            #expect(try await c.ledgerEntries() == entries)
        }
    }

    @Test func aDisputeWonKeepsThePurchaseAndADisputeLostRevokesIt() async throws {
        try await Self.run { c in
            let subscription = try await c.buy("alice")
            let firstCharge = try #require(c.sim.control.latestCharge(ofSubscription: subscription))
            let won = try await c.sim.control.openDispute(charge: firstCharge)
            #expect(try await c.h.entitlements("alice") == ["pro"])
            try await c.sim.control.closeDispute(won, won: true)
            #expect(try await c.h.entitlements("alice") == ["pro"])

            await c.advance(days: 31)
            let renewalCharge = try #require(c.sim.control.latestCharge(ofSubscription: subscription))
            #expect(renewalCharge != firstCharge)
            let lost = try await c.sim.control.openDispute(charge: renewalCharge)
            try await c.sim.control.closeDispute(lost, won: false)
            #expect(try await c.transactions(of: subscription).map { $0.hasSuffix(" true") } == [false, true])
            #expect(try await c.h.entitlements("alice") == [])
        }
    }

    @Test func theSuccessPageSubmissionCreditsTheOrdersAccountAndNoOtherAccountTakesIt() async throws {
        try await Self.run { c in
            c.sim.control.dropNextWebhooks(1000)
            let session = try await c.checkout("alice")
            let subscription = try await c.sim.control.completeCheckout(session)
            // bob's app server submits alice's session: the order in its metadata names alice.
            let bob = try await c.h.call(
                .post, "/v1/purchases/stripe", json: ["account_id": "bob", "checkout_session_id": session])
            #expect(bob.status == .ok, "\(bob.json)")
            #expect(try await c.owner(of: subscription) == "alice")
            #expect(try await c.h.entitlements("bob") == [])
            #expect(try await c.h.entitlements("alice") == ["pro"])
            // A session not paid yet is refused.
            let unpaid = try await c.h.call(
                .post, "/v1/purchases/stripe",
                json: ["account_id": "carol", "checkout_session_id": try await c.checkout("carol")])
            #expect(unpaid.status == .unprocessableContent)
            #expect((unpaid.json["error"] as? [String: Any])?["code"] as? String == "purchase_not_completed")
        }
    }

    @Test func aDecliningCardEndsAccessAtThePeriodsEndUntilARetryPays() async throws {
        try await Self.run { c in
            let subscription = try await c.buy("alice")
            let json = try #require(c.sim.control.object(subscription))
            let object = try JSONSerialization.jsonObject(with: json) as? [String: Any]
            let customer = object?["customer"] as? String
            await c.sim.control.setCardDeclines(try #require(customer), true)
            // The renewal fails: past due, no new period paid; past the paid period, nothing.
            await c.advance(days: 31)
            #expect(try await c.transactions(of: subscription).count == 1)
            #expect(try await c.h.entitlements("alice") == [])
            // The card works again; Stripe's retry three days after pays the open invoice.
            await c.sim.control.setCardDeclines(try #require(customer), false)
            await c.advance(days: 3)
            #expect(try await c.transactions(of: subscription).count == 2)
            #expect(try await c.h.entitlements("alice") == ["pro"])
        }
    }

    @Test func cancellingAtPeriodEndStopsAutoRenewAndTheTrialIsFree() async throws {
        try await Self.run { c in
            let subscription = try await c.buy("alice", trialDays: 7)
            #expect(try await c.h.entitlements("alice") == ["pro"])
            let trial = try await c.h.pool.query(
                "SELECT is_trial_period FROM transactions WHERE original_transaction_id = \(subscription)"
            ).single().decode(Bool.self, at: 0)
            #expect(trial)
            try await c.sim.control.updateSubscription(subscription, "cancel_at_period_end=true")
            let answer = try await c.h.client.call(.get, "/v1/accounts/alice/entitlements", key: c.h.key)
            let entitlement = try #require((answer.json["entitlements"] as? [[String: Any]])?.first)
            #expect(entitlement["will_auto_renew"] as? Bool == false)
            #expect(entitlement["store"] as? String == "stripe")
            await c.advance(days: 8)
            #expect(try await c.h.entitlements("alice") == [])
            #expect(try await c.transactions(of: subscription).count == 1)
        }
    }

    @Test func duringASecretRollEventsVerifyUnderTheSecretTheAppHas() async throws {
        try await Self.run { c in
            // Stripe signs with the new and the old secret while both live: the catalog's (old) one still verifies.
            _ = try await c.sim.control.rollWebhookSecret(overlap: 86_400)
            _ = try await c.buy("alice")
            #expect(try await c.h.entitlements("alice") == ["pro"])
            // Once the old secret expired, nothing the app can verify arrives: refused, and retried by Stripe.
            await c.advance(days: 2)
            let before = c.sim.control.deliveries().count
            _ = try await c.buy("bob")
            let refused = c.sim.control.deliveries().dropFirst(before)
            #expect(!refused.isEmpty && refused.allSatisfy { !$0.delivered && $0.attempts == 1 })
            #expect(try await c.h.entitlements("bob") == [])
        }
    }
}
