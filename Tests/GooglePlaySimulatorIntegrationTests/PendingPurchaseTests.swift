import Foundation
import GooglePlay
import GooglePlaySimulator
import SubLedgerCore
import Testing

@Suite struct PendingPurchaseTests {
    func buyPending(_ fixture: PlayFixture, _ productId: String, basePlanId: String? = nil) async throws
        -> PurchaseDescription
    {
        try await fixture.controlAction(
            "/control/purchases",
            PurchaseRequest(
                packageName: PlayFixture.packageName, productId: productId, basePlanId: basePlanId,
                obfuscatedExternalAccountId: "account-1", pending: true))
    }

    @Test func aPendingSubscriptionIsGrantedOnlyWhenPaid() async throws {
        try await PlayFixture.with { fixture in
            let pending = try await buyPending(fixture, "pro", basePlanId: "monthly")
            #expect(pending.state == "pending")
            #expect(pending.messageIds.isEmpty)
            #expect(try await fixture.subscription(pending.purchaseToken).subscriptionState == .pending)
            let early = try await fixture.call(
                .acknowledgeSubscription(
                    packageName: PlayFixture.packageName, subscriptionId: "pro", token: pending.purchaseToken))
            #expect(early.status == 400)

            // Paid two days later: granted from then, and the three days to acknowledge start then.
            try await fixture.advance(days: 2)
            _ = try await fixture.controlAction("/control/purchases/\(pending.purchaseToken)/complete-pending")
            try await fixture.advance(days: 2)
            let purchase = try await fixture.subscription(pending.purchaseToken)
            #expect(purchase.subscriptionState == .active)
            #expect(purchase.start == RFC3339.parse("2025-01-03T00:00:00Z"))
            #expect(purchase.expiry == RFC3339.parse("2025-02-03T00:00:00Z"))
            #expect(try fixture.pushedTypes(pending.purchaseToken) == [.purchased])
        }
    }

    @Test func anUnpaidPendingSubscriptionIsCanceledNeverVoided() async throws {
        try await PlayFixture.with { fixture in
            let pending = try await buyPending(fixture, "pro", basePlanId: "yearly")
            let canceled = try await fixture.controlAction("/control/purchases/\(pending.purchaseToken)/cancel-pending")
            #expect(canceled.state == "pending_purchase_canceled")
            try await fixture.advance(days: 5)
            #expect(try await fixture.subscription(pending.purchaseToken).subscriptionState == .pendingPurchaseCanceled)
            #expect(try fixture.pushedTypes(pending.purchaseToken) == [.pendingPurchaseCanceled])
            #expect(fixture.simulator.control.voidedPurchases().isEmpty)
            let again = try await fixture.control(
                .POST, "/control/purchases/\(pending.purchaseToken)/complete-pending", [String: String]())
            #expect(again.status == 409)
        }
    }

    @Test func aPendingOneTimePurchaseReportsItsPurchaseState() async throws {
        try await PlayFixture.with { fixture in
            let package = PlayFixture.packageName
            let paid = try await buyPending(fixture, "coins")
            let unpaid = try await buyPending(fixture, "lifetime")
            func state(_ productId: String, _ token: String) async throws -> Int32? {
                try await fixture.call(.getProduct(packageName: package, productId: productId, token: token))
                    .decode(ProductPurchase.self).purchaseState
            }
            #expect(try await state("coins", paid.purchaseToken) == 2)
            let v2 = try await fixture.call(.getProductV2(packageName: package, token: paid.purchaseToken))
                .decode(ProductPurchaseV2.self)
            #expect(v2.purchaseStateContext?.purchaseState == .pending)
            #expect(
                try await fixture.call(
                    .consumeProduct(packageName: package, productId: "coins", token: paid.purchaseToken)
                )
                .status == 400)

            _ = try await fixture.controlAction("/control/purchases/\(paid.purchaseToken)/complete-pending")
            _ = try await fixture.controlAction("/control/purchases/\(unpaid.purchaseToken)/cancel-pending")
            #expect(try await state("coins", paid.purchaseToken) == 0)
            #expect(try await state("lifetime", unpaid.purchaseToken) == 1)
            let oneTime = try fixture.pushes().compactMap(\.notification.oneTimeProductNotification)
            #expect(
                oneTime.map { [$0.purchaseToken, String($0.notificationType)] } == [
                    [paid.purchaseToken, "1"], [unpaid.purchaseToken, "2"],
                ])
            // The canceled one is never refunded; the paid one, unacknowledged, is three days after payment.
            try await fixture.advance(days: 3)
            #expect(fixture.simulator.control.voidedPurchases().compactMap(\.purchaseToken) == [paid.purchaseToken])
        }
    }
}
