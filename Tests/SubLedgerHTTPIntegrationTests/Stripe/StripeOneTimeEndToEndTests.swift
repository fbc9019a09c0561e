import Foundation
import HTTPTypes
import NIOCore
import PostgresLibPQ
import StripeClients
import StripeSimulator
import StripeStore
import SubLedgerCore
import SubLedgerReports
import SubLedgerStore
import SubLedgerUseCases
import Testing

/// One-time web purchases end to end: SubLedger's checkout in payment mode, stripe-sim's Checkout Session paid by the
/// customer, Stripe's signed webhooks to a live server, the payment intent and its charge read back from stripe-sim's
/// API, PostgreSQL. A non-consumable grants its entitlement without end, a consumable its credits.
@Suite struct StripeOneTimeEndToEndTests {
    struct Context: Sendable {
        let sim: StripeSimulator
        let h: StripeHarness
        /// One-time prices: the lifetime unlock (USD), the gems (JPY, zero-decimal), the 30-day pass (USD).
        let lifetimePrice: String
        let gemsPrice: String
        let passPrice: String
        /// A monthly price of the lifetime product, which a one-time product is not sold at.
        let recurringLifetimePrice: String

        /// Asks SubLedger for a checkout; the answer.
        func startCheckout(_ account: String, product: String, price: String, trialDays: Int? = nil) async throws
            -> (status: HTTPResponse.Status, json: [String: Any])
        {
            var json: [String: Any] = [
                "account_id": account, "product_id": product, "price": price,
                "success_url": "https://example.com/paid?session={CHECKOUT_SESSION_ID}",
            ]
            if let trialDays { json["trial_period_days"] = trialDays }
            let answer = try await h.client.call(
                .post, "/v1/checkout/stripe", key: h.key,
                raw: ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: json)))
            return (answer.status, answer.json)
        }

        /// Starts a payment-mode checkout for `account`; the session's id.
        func checkout(_ account: String, product: String, price: String) async throws -> String {
            let answer = try await startCheckout(account, product: product, price: price)
            #expect(answer.status == .created, "\(answer.json)")
            #expect(answer.json["mode"] as? String == "payment")
            return try #require(answer.json["checkout_session_id"] as? String)
        }

        /// A one-time purchase by `account`: checkout, then the customer pays; the payment intent.
        func buy(_ account: String, product: String, price: String) async throws -> String {
            try await sim.control.completeCheckout(try await checkout(account, product: product, price: price))
        }

        func owner(of chain: String) async throws -> String? {
            try await h.pool.query(
                "SELECT owner_account_id FROM chains WHERE original_transaction_id = \(chain)"
            ).first?.decode(String?.self, at: 0)
        }

        /// The chain's transactions as `id product revoked`.
        func transactions(of chain: String) async throws -> [String] {
            try await h.pool.query(
                """
                SELECT transaction_id || ' ' || product_id || ' ' || (revocation_date IS NOT NULL)::text
                FROM transactions WHERE original_transaction_id = \(chain) ORDER BY purchase_date, transaction_id
                """
            ).map { try $0.decode(String.self, at: 0) }
        }

        /// The stored transaction's price, currency and processing fee (milli-units).
        func money(of chain: String) async throws -> (price: Int64?, currency: String?, fee: Int64?) {
            let row = try await h.pool.query(
                """
                SELECT (payload -> 'transaction' ->> 'price')::bigint, payload -> 'transaction' ->> 'currency',
                       (payload -> 'transaction' ->> 'processingFee')::bigint
                FROM transactions WHERE original_transaction_id = \(chain)
                """
            ).single()
            return (
                try row.decode(Int64?.self, at: 0), try row.decode(String?.self, at: 1),
                try row.decode(Int64?.self, at: 2)
            )
        }

        func ledgerEntries() async throws -> Int64 {
            try await h.pool.query("SELECT count(*) FROM ledger_entries").single().decode(Int64.self, at: 0)
        }

        /// Stripe's fee on the payment intent's charge, in minor units, as stripe-sim's balance transaction states it.
        func fee(of paymentIntent: String) throws -> Int64 {
            let charge = try #require(sim.control.latestCharge(ofPaymentIntent: paymentIntent))
            let chargeJSON = try #require(sim.control.object(charge))
            let chargeObject = try #require(try JSONSerialization.jsonObject(with: chargeJSON) as? [String: Any])
            let balanceID = try #require(chargeObject["balance_transaction"] as? String)
            let balanceJSON = try #require(sim.control.object(balanceID))
            let balance = try #require(try JSONSerialization.jsonObject(with: balanceJSON) as? [String: Any])
            return Int64(try #require(balance["fee"] as? Int))
        }
    }

    static func run(_ body: @Sendable (Context) async throws -> Void) async throws {
        let sim = try await StripeSimulator.start(
            .init(
                startTime: Instant(millisecondsSince1970: 1_764_201_600_000), secretKey: StripeHarness.secretKey,
                deliveryTimeout: .seconds(120)))
        do {
            try await StripeHarness.run(stripeURL: sim.baseURL, now: { sim.control.now }) { h in
                guard let port = h.client.port else { throw StripeEndToEndTests.StripeSimulatorError.noPort }
                sim.control.addWebhookEndpoint(
                    url: "http://127.0.0.1:\(port)/v1/notifications/stripe", secret: StripeHarness.webhookSecret)
                for (name, id) in [("Lifetime", "prod_lifetime"), ("Gems", "prod_gems"), ("Pass", "prod_pass")] {
                    _ = try await sim.control.createProduct(name: name, id: id)
                }
                let context = Context(
                    sim: sim, h: h,
                    lifetimePrice: try await sim.control.createPrice(
                        product: "prod_lifetime", unitAmount: 4_999, interval: nil),
                    gemsPrice: try await sim.control.createPrice(
                        product: "prod_gems", unitAmount: 500, currency: "jpy", interval: nil),
                    passPrice: try await sim.control.createPrice(product: "prod_pass", unitAmount: 799, interval: nil),
                    recurringLifetimePrice: try await sim.control.createPrice(
                        product: "prod_lifetime", unitAmount: 499))
                try await body(context)
            }
        } catch {
            try? await sim.shutdown()
            throw error
        }
        try await sim.shutdown()
    }

    @Test func aNonConsumableBoughtOnTheWebIsAnEntitlementWithoutEnd() async throws {
        try await Self.run { c in
            let intent = try await c.buy("alice", product: "prod_lifetime", price: c.lifetimePrice)
            #expect(intent.hasPrefix("pi_"))
            #expect(c.sim.control.deliveries().allSatisfy { $0.delivered })
            #expect(try await c.h.entitlements("alice") == ["lifetime"])
            #expect(try await c.owner(of: intent) == "alice")
            #expect(try await c.transactions(of: intent) == ["\(intent) prod_lifetime false"])
            let answer = try await c.h.client.call(.get, "/v1/accounts/alice/entitlements", key: c.h.key)
            let entitlement = try #require((answer.json["entitlements"] as? [[String: Any]])?.first)
            #expect(entitlement["expires_at"] == nil || entitlement["expires_at"] is NSNull)
            #expect(entitlement["product_type"] as? String == "non_consumable")
            #expect(entitlement["store"] as? String == "stripe")
            // The price and Stripe's fee, in milli-units of USD.
            let money = try await c.money(of: intent)
            #expect(money.price == 49_990 && money.currency == "USD")
            #expect(money.fee == (try c.fee(of: intent)) * 10)
            // Months later it is still held.
            await c.sim.control.advance(seconds: 400 * 86_400)
            #expect(try await c.h.entitlements("alice") == ["lifetime"])
        }
    }

    @Test func aConsumableBoughtTwiceIsTwoCreditsInAZeroDecimalCurrency() async throws {
        try await Self.run { c in
            let first = try await c.buy("alice", product: "prod_gems", price: c.gemsPrice)
            #expect(try await c.h.credits("alice") == 100)
            let second = try await c.buy("alice", product: "prod_gems", price: c.gemsPrice)
            #expect(second != first)
            #expect(try await c.h.credits("alice") == 200)
            #expect(try await c.h.entitlements("alice") == [])
            // 500 yen is 500 whole units: 500,000 milli-units; Stripe's fee likewise.
            let money = try await c.money(of: second)
            #expect(money.price == 500_000 && money.currency == "JPY")
            #expect(money.fee == (try c.fee(of: second)) * 1_000)
            // A full refund of one purchase takes its credits back.
            try await c.sim.control.refund(charge: try #require(c.sim.control.latestCharge(ofPaymentIntent: first)))
            #expect(try await c.h.credits("alice") == 100)
            #expect(try await c.transactions(of: first) == ["\(first) prod_gems true"])
        }
    }

    @Test func aNonRenewingPassLastsItsCatalogDuration() async throws {
        try await Self.run { c in
            _ = try await c.buy("alice", product: "prod_pass", price: c.passPrice)
            #expect(try await c.h.entitlements("alice") == ["pass"])
            await c.sim.control.advance(seconds: 31 * 86_400)
            #expect(try await c.h.entitlements("alice") == [])
        }
    }

    @Test func duplicatedAndReorderedEventsCreditOnce() async throws {
        try await Self.run { c in
            // Stripe delivers each of the first purchase's events twice: credited once.
            c.sim.control.duplicateNextWebhooks(1000)
            _ = try await c.buy("alice", product: "prod_gems", price: c.gemsPrice)
            #expect(try await c.h.credits("alice") == 100)
            // Every event of the second purchase is dropped; then every event of both is delivered newest first,
            // then all again in order.
            c.sim.control.dropNextWebhooks(1000)
            let intent = try await c.buy("alice", product: "prod_gems", price: c.gemsPrice)
            #expect(try await c.h.credits("alice") == 100)
            let client = StripeAPI(
                httpClient: .shared, secretKey: StripeHarness.secretKey, configuration: .init(baseURL: c.sim.baseURL))
            let events = try await client.events().events
            let types = Set(events.map(\.event.type))
            #expect(
                types.isSuperset(of: ["checkout.session.completed", "payment_intent.succeeded", "charge.succeeded"]))
            for (_, body) in events {
                let answer = try await c.h.deliver(body, signature: StripeWebhookRefusalTests.signature(body))
                #expect(answer.status == .ok, "\(answer.json)")
            }
            #expect(try await c.h.credits("alice") == 200)
            #expect(try await c.transactions(of: intent).count == 1)
            let entries = try await c.ledgerEntries()
            for (_, body) in events.reversed() {
                let answer = try await c.h.deliver(body, signature: StripeWebhookRefusalTests.signature(body))
                #expect(answer.json["status"] as? String == "duplicate")
            }
            #expect(try await c.ledgerEntries() == entries)
            #expect(try await c.h.credits("alice") == 200)
        }
    }

    @Test func aDroppedWebhookOfAOneTimePurchaseIsFoundInTheEventsList() async throws {
        try await Self.run { c in
            c.sim.control.dropNextWebhooks(1000)
            let intent = try await c.buy("alice", product: "prod_lifetime", price: c.lifetimePrice)
            #expect(try await c.h.entitlements("alice") == [])
            let reconciliation = StripeEventsReconciliation(
                configuration: .init(worker: "stripe-one-time"), port: c.h.port,
                cursors: StoreEventCursors(pool: c.h.pool, store: .stripe), catalog: c.h.catalog)
            let report = try await reconciliation.runCycle()
            #expect(report.apps == 1 && report.failed == 0 && report.applied > 0)
            #expect(try await c.h.entitlements("alice") == ["lifetime"])
            #expect(try await c.owner(of: intent) == "alice")
        }
    }

    @Test func aFullRefundRevokesAndAPartialOneKeepsThePurchase() async throws {
        try await Self.run { c in
            let intent = try await c.buy("alice", product: "prod_lifetime", price: c.lifetimePrice)
            let charge = try #require(c.sim.control.latestCharge(ofPaymentIntent: intent))
            try await c.sim.control.refund(charge: charge, amount: 1_000)
            #expect(try await c.transactions(of: intent) == ["\(intent) prod_lifetime false"])
            #expect(try await c.h.entitlements("alice") == ["lifetime"])
            try await c.sim.control.refund(charge: charge)
            #expect(try await c.transactions(of: intent) == ["\(intent) prod_lifetime true"])
            #expect(try await c.h.entitlements("alice") == [])
        }
    }

    @Test func aDisputeLostRevokesThePurchase() async throws {
        try await Self.run { c in
            let intent = try await c.buy("alice", product: "prod_lifetime", price: c.lifetimePrice)
            let charge = try #require(c.sim.control.latestCharge(ofPaymentIntent: intent))
            let dispute = try await c.sim.control.openDispute(charge: charge)
            #expect(try await c.h.entitlements("alice") == ["lifetime"])
            try await c.sim.control.closeDispute(dispute, won: false)
            #expect(try await c.h.entitlements("alice") == [])
        }
    }

    @Test func theSuccessPageSubmissionCreditsTheOrdersAccount() async throws {
        try await Self.run { c in
            c.sim.control.dropNextWebhooks(1000)
            let session = try await c.checkout("alice", product: "prod_lifetime", price: c.lifetimePrice)
            let intent = try await c.sim.control.completeCheckout(session)
            let bob = try await c.h.call(
                .post, "/v1/purchases/stripe", json: ["account_id": "bob", "checkout_session_id": session])
            #expect(bob.status == .ok, "\(bob.json)")
            #expect(try await c.owner(of: intent) == "alice")
            #expect(try await c.h.entitlements("bob") == [])
            #expect(try await c.h.entitlements("alice") == ["lifetime"])
        }
    }

    @Test func aOneTimeProductIsSoldAtAOneTimePriceWithoutTrial() async throws {
        try await Self.run { c in
            let recurring = try await c.startCheckout(
                "alice", product: "prod_lifetime", price: c.recurringLifetimePrice)
            #expect(recurring.status == .unprocessableContent)
            #expect((recurring.json["error"] as? [String: Any])?["code"] as? String == "invalid_value")
            let trial = try await c.startCheckout(
                "alice", product: "prod_lifetime", price: c.lifetimePrice, trialDays: 7)
            #expect(trial.status == .unprocessableContent)
            #expect((trial.json["error"] as? [String: Any])?["code"] as? String == "invalid_value")
            let otherProduct = try await c.startCheckout("alice", product: "prod_gems", price: c.lifetimePrice)
            #expect(otherProduct.status == .unprocessableContent)
            // A subscription is not sold at a one-time price.
            let subscription = try await c.startCheckout("alice", product: StripeHarness.product, price: c.passPrice)
            #expect(subscription.status == .unprocessableContent)
        }
    }

    @Test func supportFindsAOneTimePurchaseByItsCustomerChargeAndPaymentIntent() async throws {
        try await Self.run { c in
            let intent = try await c.buy("alice", product: "prod_lifetime", price: c.lifetimePrice)
            let intentJSON = try #require(c.sim.control.object(intent))
            let intentObject = try #require(try JSONSerialization.jsonObject(with: intentJSON) as? [String: Any])
            // The session made a customer for the guest (`customer_creation=always`).
            let customer = try #require(intentObject["customer"] as? String)
            #expect(customer.hasPrefix("cus_"))
            let charge = try #require(c.sim.control.latestCharge(ofPaymentIntent: intent))
            let admin = try await APIKeys(store: APIKeyStore(pool: c.h.pool)).create(bundleID: nil, name: "ops").secret
            for (id, kind) in [
                (customer, "stripe_customer"), (charge, "stripe_charge"), (intent, "stripe_payment_intent"),
            ] {
                let answer = try await c.h.client.call(.get, "/v1/admin/lookup/stripe/\(id)", key: admin)
                #expect(answer.status == .ok, "\(id): \(answer.json)")
                #expect(answer.json["kind"] as? String == kind)
                #expect(answer.json["account_id"] as? String == "alice", "\(id)")
                let chains = answer.json["chains"] as? [[String: Any]] ?? []
                #expect(chains.map { $0["original_transaction_id"] as? String } == [intent], "\(id)")
            }
        }
    }

    @Test func aOneTimeWebSaleIsReportedWithStripesFeeAndNoCommission() async throws {
        try await Self.run { c in
            let intent = try await c.buy("alice", product: "prod_lifetime", price: c.lifetimePrice)
            let fee = try c.fee(of: intent) * 10
            let admin = try await APIKeys(store: APIKeyStore(pool: c.h.pool)).create(bundleID: nil, name: "ops").secret
            _ = try await ReportProjector(pool: c.h.pool).projectAll()
            let revenue = try await c.h.client.call(
                .get, "/v1/admin/reports/revenue?from=2025-11-01&to=2026-01-01&by=month", key: admin)
            #expect(revenue.status == .ok, "\(revenue.json)")
            let totals = revenue.json["totals"] as? [[String: Any]] ?? []
            #expect(totals.count == 1 && totals.first?["currency"] as? String == "USD")
            let amounts = totals.first?["amounts"] as? [String: Any] ?? [:]
            #expect(amounts["gross_milli"] as? Int == 49_990)
            #expect(amounts["commission_milli"] as? Int == 0)
            #expect((amounts["processing_fee_milli"] as? Int).map(Int64.init) == fee)
            #expect((amounts["proceeds_milli"] as? Int).map(Int64.init) == 49_990 - fee)
            #expect(amounts["sales"] as? Int == 1)
        }
    }
}
