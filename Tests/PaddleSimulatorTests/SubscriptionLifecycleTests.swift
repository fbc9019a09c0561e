import Testing

@testable import PaddleSimulator

/// The subscription lifecycle on the simulated clock, driven on the world's state directly (no server).
@Suite struct SubscriptionLifecycleTests {
    static let start: Int64 = 1_735_689_600  // 2025-01-01T00:00:00Z

    struct World {
        var state = PaddleWorld.State(
            now: SubscriptionLifecycleTests.start, seed: 7, apiKey: "key", taxBasisPoints: 1000)
        var customer = ""
        var price = ""

        init(trialDays: Int64? = nil) throws {
            let product = try state.createProduct(RequestFields(["name": "Pro", "tax_category": "standard"]))
            var price: PaddleJSON = [
                "product_id": product["id"] ?? nil, "description": "monthly",
                "unit_price": ["amount": "1000", "currency_code": "USD"],
                "billing_cycle": ["interval": "month", "frequency": 1],
            ]
            if let trialDays { price["trial_period"] = ["interval": "day", "frequency": .int(trialDays)] }
            self.price = try state.createPrice(RequestFields(price))["id"]?.string ?? ""
            customer = try state.createCustomer(RequestFields(["email": "ada@example.com"]))["id"]?.string ?? ""
        }

        mutating func subscribe() throws -> (transaction: String, subscription: String) {
            let transaction = try state.createTransaction(
                RequestFields([
                    "items": [["price_id": .string(price), "quantity": 1]], "customer_id": .string(customer),
                ]))
            let result = try state.completeCheckout(transaction["id"]?.string ?? "", customerID: nil, email: nil)
            return (result.transaction, try #require(result.subscription))
        }

        func subscription(_ id: String) -> PaddleJSON { state.objects[id] ?? .null }

        func transactions(of subscription: String) -> [PaddleJSON] {
            (state.idsByKind["transaction"] ?? []).compactMap { state.objects[$0] }.filter {
                $0["subscription_id"]?.string == subscription
            }
        }

        func eventTypes() -> [String] {
            (state.idsByKind["event"] ?? []).compactMap { state.objects[$0]?["event_type"]?.string }
        }

        mutating func advance(days: Int64) { state.advance(to: state.now + days * 86_400) }
    }

    @Test func aCheckoutChargesTaxAndFeeAndStartsAnActiveSubscription() throws {
        var world = try World()
        let (transactionID, subscriptionID) = try world.subscribe()
        let totals = world.state.objects[transactionID]?["details"]?["totals"]
        #expect(totals?["subtotal"] == "1000" && totals?["tax"] == "100" && totals?["grand_total"] == "1100")
        #expect(totals?["fee"] == "105" && totals?["earnings"] == "895")  // 5% of 1100 + 50; 1100 - 100 - 105
        #expect(world.state.objects[transactionID]?["status"] == "completed")
        let subscription = world.subscription(subscriptionID)
        #expect(subscription["status"] == "active")
        #expect(subscription["next_billed_at"] == "2025-02-01T00:00:00.000000Z")
        #expect(
            world.eventTypes().suffix(6) == [
                "transaction.ready", "transaction.paid", "subscription.created", "subscription.activated",
                "transaction.updated", "transaction.completed",
            ])
    }

    @Test func theClockRenewsWithARecurringTransactionPerPeriod() throws {
        var world = try World()
        let (_, id) = try world.subscribe()
        world.advance(days: 59)  // past Feb 1 (renewal) and Mar 1 (renewal)
        let transactions = world.transactions(of: id)
        #expect(
            transactions.map { $0["origin"]?.string } == ["api", "subscription_recurring", "subscription_recurring"])
        #expect(transactions.allSatisfy { $0["status"] == "completed" })
        #expect(world.subscription(id)["current_billing_period"]?["starts_at"] == "2025-03-01T00:00:00.000000Z")
        #expect(world.subscription(id)["next_billed_at"] == "2025-04-01T00:00:00.000000Z")
    }

    @Test func aDeclinedRenewalIsPastDueThenRetriedUntilPaid() throws {
        var world = try World()
        let (_, id) = try world.subscribe()
        world.state.decliningCustomers.insert(world.customer)
        world.advance(days: 31)
        #expect(world.subscription(id)["status"] == "past_due")
        #expect(world.transactions(of: id).last?["status"] == "past_due")
        #expect(world.eventTypes().contains("subscription.past_due"))
        world.state.decliningCustomers.remove(world.customer)
        world.advance(days: 3)
        #expect(world.subscription(id)["status"] == "active")
        #expect(world.transactions(of: id).last?["status"] == "completed")
        #expect(world.transactions(of: id).last?["payments"]?.array?.count == 2)
    }

    @Test func aRenewalStillDeclinedAfterEveryRetryIsCanceled() throws {
        var world = try World()
        let (_, id) = try world.subscribe()
        world.state.decliningCustomers.insert(world.customer)
        world.advance(days: 31 + 3 * 5)
        #expect(world.subscription(id)["status"] == "canceled")
        #expect(world.transactions(of: id).last?["status"] == "canceled")
        #expect(world.transactions(of: id).last?["payments"]?.array?.count == 1 + PaddleWorld.State.maximumRetries)
    }

    @Test func aCancelAtThePeriodsEndIsNotBilledAgain() throws {
        var world = try World()
        let (_, id) = try world.subscribe()
        _ = try world.state.cancel(id, RequestFields([:]))
        #expect(world.subscription(id)["scheduled_change"]?["action"] == "cancel")
        #expect(world.subscription(id)["status"] == "active")
        world.advance(days: 40)
        #expect(world.subscription(id)["status"] == "canceled")
        #expect(world.transactions(of: id).count == 1)
        #expect(throws: PaddleFailure.subscriptionCanceled) { try world.state.pause(id, RequestFields([:])) }
    }

    @Test func aPauseTakesEffectAtThePeriodsEndAndAResumeBillsANewPeriod() throws {
        var world = try World()
        let (_, id) = try world.subscribe()
        _ = try world.state.pause(id, RequestFields([:]))
        #expect(throws: PaddleFailure.subscriptionPendingChanges) { try world.state.cancel(id, RequestFields([:])) }
        world.advance(days: 45)
        #expect(world.subscription(id)["status"] == "paused")
        #expect(world.subscription(id)["next_billed_at"] == .null)
        #expect(world.transactions(of: id).count == 1)
        _ = try world.state.resume(id, RequestFields(["effective_from": "immediately"]))
        #expect(world.subscription(id)["status"] == "active")
        #expect(world.subscription(id)["current_billing_period"]?["starts_at"] == "2025-02-15T00:00:00.000000Z")
        #expect(world.transactions(of: id).count == 2)
        #expect(throws: PaddleFailure.subscriptionMustBePaused) { try world.state.resume(id, RequestFields([:])) }
    }

    @Test func aTrialChargesNothingThenBillsAndActivatesWhenItEnds() throws {
        var world = try World(trialDays: 14)
        let (transaction, id) = try world.subscribe()
        #expect(world.state.objects[transaction]?["details"]?["totals"]?["grand_total"] == "0")
        #expect(world.subscription(id)["status"] == "trialing")
        #expect(world.subscription(id)["next_billed_at"] == "2025-01-15T00:00:00.000000Z")
        world.advance(days: 14)
        #expect(world.subscription(id)["status"] == "active")
        #expect(world.transactions(of: id).last?["details"]?["totals"]?["grand_total"] == "1100")
        #expect(world.eventTypes().filter { $0 == "subscription.activated" }.count == 1)
    }

    @Test func aRefundWaitsForApprovalThenReducesTheAdjustedTotals() throws {
        var world = try World()
        let (transaction, _) = try world.subscribe()
        let refund = try world.state.createAdjustment(
            RequestFields([
                "action": "refund", "type": "full", "reason": "asked", "transaction_id": .string(transaction),
            ]))
        #expect(refund["status"] == "pending_approval" && refund["totals"]?["total"] == "1100")
        #expect(throws: PaddleFailure.pendingRefund) {
            try world.state.createAdjustment(
                RequestFields([
                    "action": "refund", "type": "full", "reason": "again", "transaction_id": .string(transaction),
                ]))
        }
        world.state.advance(to: world.state.now + 600)
        let id = refund["id"]?.string ?? ""
        #expect(world.state.objects[id]?["status"] == "approved")
        #expect(world.state.objects[transaction]?["details"]?["adjusted_totals"]?["total"] == "0")
        #expect(throws: PaddleFailure.self) {
            try world.state.createAdjustment(
                RequestFields([
                    "action": "refund", "type": "full", "reason": "more", "transaction_id": .string(transaction),
                ]))
        }
    }

    @Test func hostileAmountsAndQuantitiesAreRefusedNotTrapped() throws {
        var world = try World()
        for amount: PaddleJSON in ["-1", "99999999999999999999", "1e3", "", 5, "１"] {
            #expect(throws: PaddleFailure.self) {
                try world.state.createPrice(
                    RequestFields([
                        "product_id": .string(world.state.idsByKind["product"]?.first ?? ""), "description": "x",
                        "unit_price": ["amount": amount, "currency_code": "USD"],
                    ]))
            }
        }
        for quantity: PaddleJSON in [0, -5, 1_000_000_000_000, "1"] {
            #expect(throws: PaddleFailure.self) {
                try world.state.createTransaction(
                    RequestFields(["items": [["price_id": .string(world.price), "quantity": quantity]]]))
            }
        }
        #expect(Money.share(10_000_000_000 * 10_000, 10_000, 10_000) == 100_000_000_000_000)
    }
}
