import Foundation
import GooglePlay
import GooglePlaySimulator
import SubLedgerCore
import Testing

@Suite struct SubscriptionLifecycleTests {
    static let start = GooglePlaySimulator.Configuration.defaultStart

    @Test func purchaseIsServedAsSubscriptionPurchaseV2AndPushed() async throws {
        try await PlayFixture.with { fixture in
            let bought = try await fixture.buy("pro", basePlanId: "monthly", offerId: "intro", test: true)
            #expect(bought.messageIds.count == 1)
            let purchase = try await fixture.subscription(bought.purchaseToken)
            #expect(purchase.kind == SubscriptionPurchaseV2.resourceKind)
            #expect(purchase.subscriptionState == .active)
            #expect(purchase.acknowledgementState == .pending)
            #expect(purchase.isTestPurchase)
            #expect(purchase.externalAccountIdentifiers?.obfuscatedExternalAccountId == "account-1")
            #expect(purchase.start == Self.start)
            // A license tester's month lasts five minutes.
            #expect(purchase.expiry == Self.start.adding(milliseconds: 5 * 60_000))
            let item = try #require(purchase.lineItems?.first)
            #expect(item.productId == "pro")
            #expect(item.offerDetails == OfferDetails(basePlanId: "monthly", offerId: "intro", offerTags: ["launch"]))
            #expect(item.autoRenewingPlan?.autoRenewEnabled == true)
            #expect(item.autoRenewingPlan?.recurringPrice?.micros == 9_990_000)
            #expect(item.latestSuccessfulOrderId == bought.orderId)
            #expect(try fixture.pushedTypes(bought.purchaseToken) == [.purchased])
            let push = try #require(try fixture.pushes().first)
            #expect(push.notification.packageName == PlayFixture.packageName)
            #expect(push.notification.eventTime == Self.start)
        }
    }

    @Test func licenseTesterSubscriptionsRunOnGoogleTestTimesAndStopAfterSixRenewals() async throws {
        try await PlayFixture.with { fixture in
            let minute: Int64 = 60_000
            let renewing = try await fixture.buy("pro", basePlanId: "yearly", test: true)
            try await fixture.acknowledge(renewing)
            let failing = try await fixture.buy("pro", basePlanId: "monthly", test: true)
            try await fixture.acknowledge(failing)
            _ = try await fixture.controlAction("/control/subscriptions/\(failing.purchaseToken)/billing-failure")

            try await fixture.advance(hours: 1)
            // A year is 30 minutes: renewed at 30 minutes, and in the hour no more.
            var purchase = try await fixture.subscription(renewing.purchaseToken)
            #expect(purchase.expiry == Self.start.adding(milliseconds: 90 * minute))
            // Grace 5 minutes from the 5th, hold 10 minutes from the 10th, over at the 20th.
            purchase = try await fixture.subscription(failing.purchaseToken)
            #expect(purchase.subscriptionState == .expired)
            #expect(
                try fixture.pushedTypes(failing.purchaseToken) == [
                    .purchased, .inGracePeriod, .onHold, .canceled, .expired,
                ])
            let times = try fixture.pushes().filter {
                $0.notification.subscriptionNotification?.purchaseToken == failing.purchaseToken
            }.compactMap(\.notification.eventTime)
            #expect(
                times.map { ($0.millisecondsSince1970 - Self.start.millisecondsSince1970) / minute } == [
                    0, 5, 10, 20, 20,
                ])

            // Six renewals in three hours, canceled by Google with the sixth, expired at its end.
            try await fixture.advance(hours: 3)
            purchase = try await fixture.subscription(renewing.purchaseToken)
            #expect(purchase.subscriptionState == .expired)
            #expect(purchase.canceledStateContext?.initiator == .system)
            #expect(purchase.expiry == Self.start.adding(milliseconds: 210 * minute))
            #expect(
                try fixture.pushedTypes(renewing.purchaseToken)
                    == [.purchased] + Array(repeating: .renewed, count: 6) + [.canceled, .expired])
        }
    }

    @Test func aFreeTrialIsTheFirstPeriodThenTheBasePriceIsCharged() async throws {
        try await PlayFixture.with { fixture in
            let bought = try await fixture.buy("pro", basePlanId: "monthly", offerId: "trial")
            try await fixture.acknowledge(bought)
            var purchase = try await fixture.subscription(bought.purchaseToken)
            #expect(purchase.expiry == RFC3339.parse("2025-01-08T00:00:00Z"))
            #expect(purchase.lineItems?.first?.offerPhase?.kind == .freeTrial)
            #expect(purchase.lineItems?.first?.offerDetails?.offerId == "trial")
            try await fixture.advance(days: 7)
            purchase = try await fixture.subscription(bought.purchaseToken)
            #expect(purchase.lineItems?.first?.offerPhase?.kind == .basePrice)
            #expect(purchase.expiry == RFC3339.parse("2025-02-08T00:00:00Z"))
            #expect(purchase.lineItems?.first?.latestSuccessfulOrderId == bought.orderId + "..0")
            #expect(try fixture.pushedTypes(bought.purchaseToken) == [.purchased, .renewed])

            // A license tester's trial lasts three minutes.
            let tester = try await fixture.buy("pro", basePlanId: "monthly", offerId: "trial", test: true)
            #expect(
                try await fixture.subscription(tester.purchaseToken).expiry
                    == RFC3339.parse("2025-01-08T00:03:00Z"))
        }
    }

    @Test func renewalMovesTheExpiryAndIsNotified() async throws {
        try await PlayFixture.with { fixture in
            let bought = try await fixture.buy("pro", basePlanId: "monthly")
            try await fixture.acknowledge(bought)
            try await fixture.advance(days: 31)
            let purchase = try await fixture.subscription(bought.purchaseToken)
            #expect(purchase.subscriptionState == .active)
            #expect(purchase.acknowledgementState == .acknowledged)
            #expect(purchase.expiry == RFC3339.parse("2025-03-01T00:00:00Z"))
            #expect(purchase.lineItems?.first?.latestSuccessfulOrderId == bought.orderId + "..0")
            #expect(try fixture.pushedTypes(bought.purchaseToken) == [.purchased, .renewed])
            let renewal = try #require(try fixture.pushes().last?.notification)
            #expect(renewal.eventTime == RFC3339.parse("2025-02-01T00:00:00Z"))
        }
    }

    @Test func unacknowledgedForThreeDaysIsRefundedRevokedAndVoided() async throws {
        try await PlayFixture.with { fixture in
            let subscription = try await fixture.buy("pro", basePlanId: "monthly")
            let coins = try await fixture.buy("coins")
            let kept = try await fixture.buy("lifetime")
            let acknowledged = try await fixture.call(
                .acknowledgeProduct(
                    packageName: PlayFixture.packageName, productId: "lifetime", token: kept.purchaseToken),
                body: AcknowledgeRequest())
            #expect(acknowledged.status == 200)
            try await fixture.advance(days: 2, hours: 23)
            #expect(try await fixture.subscription(subscription.purchaseToken).subscriptionState == .active)
            try await fixture.advance(hours: 1)

            let purchase = try await fixture.subscription(subscription.purchaseToken)
            #expect(purchase.subscriptionState == .expired)
            #expect(purchase.canceledStateContext?.initiator == .system)
            #expect(purchase.expiry == Self.start.adding(milliseconds: 3 * 86_400_000))
            #expect(try fixture.pushedTypes(subscription.purchaseToken) == [.purchased, .revoked])
            let voidedPushes = try fixture.pushes().compactMap(\.notification.voidedPurchaseNotification)
            #expect(Set(voidedPushes.map(\.purchaseToken)) == [subscription.purchaseToken, coins.purchaseToken])

            let product = try await fixture.call(
                .getProduct(packageName: PlayFixture.packageName, productId: "coins", token: coins.purchaseToken))
            #expect(try product.decode(ProductPurchase.self).isCanceled)

            let both = try await fixture.call(
                .listVoidedPurchases(packageName: PlayFixture.packageName), query: "?type=1")
            let listed = try both.decode(VoidedPurchasesListResponse.self).voidedPurchases ?? []
            #expect(Set(listed.compactMap(\.purchaseToken)) == [subscription.purchaseToken, coins.purchaseToken])
            #expect(listed.allSatisfy { $0.reason == .unacknowledgedPurchase && $0.source == .google })
            let oneTimeOnly = try await fixture.call(.listVoidedPurchases(packageName: PlayFixture.packageName))
            #expect(
                try oneTimeOnly.decode(VoidedPurchasesListResponse.self).voidedPurchases?.compactMap(\.purchaseToken)
                    == [coins.purchaseToken])
        }
    }

    @Test func whatFallsDueBeforeTheAcknowledgementDeadlineHappensFirst() async throws {
        try await PlayFixture.with { fixture in
            // A tester's month is five minutes: it renews (and, the sixth time, is canceled) well within the three
            // days to acknowledge, which a single advance of four days passes.
            let bought = try await fixture.buy("pro", basePlanId: "monthly", test: true)
            try await fixture.advance(days: 4)
            #expect(
                try fixture.pushedTypes(bought.purchaseToken)
                    == [.purchased] + Array(repeating: .renewed, count: 6) + [.canceled, .expired])
            // It expired before the deadline: nothing was left to refund.
            #expect(fixture.simulator.control.voidedPurchases().isEmpty)
        }
    }

    @Test func upgradeMakesANewTokenLinkedToTheOldOne() async throws {
        try await PlayFixture.with { fixture in
            let bought = try await fixture.buy("pro", basePlanId: "monthly")
            try await fixture.acknowledge(bought)
            try await fixture.advance(days: 10)
            let upgraded = try await fixture.controlAction(
                "/control/subscriptions/\(bought.purchaseToken)/change-plan",
                ChangePlanRequest(productId: "premium", basePlanId: "monthly"))
            #expect(upgraded.purchaseToken != bought.purchaseToken)

            let new = try await fixture.subscription(upgraded.purchaseToken)
            #expect(new.linkedPurchaseToken == bought.purchaseToken)
            #expect(new.subscriptionState == .active)
            #expect(new.acknowledgementState == .pending)
            #expect(new.lineItems?.first?.productId == "premium")
            #expect(new.externalAccountIdentifiers?.obfuscatedExternalAccountId == "account-1")
            #expect(new.expiry == RFC3339.parse("2025-02-11T00:00:00Z"))
            let old = try await fixture.subscription(bought.purchaseToken)
            #expect(old.subscriptionState == .expired)
            #expect(old.canceledStateContext?.initiator == .replacement)
            #expect(try fixture.pushedTypes(upgraded.purchaseToken) == [.purchased])
        }
    }

    @Test func reSignupOfACanceledSubscriptionIsLinkedToo() async throws {
        try await PlayFixture.with { fixture in
            let bought = try await fixture.buy("pro", basePlanId: "monthly")
            try await fixture.acknowledge(bought)
            _ = try await fixture.controlAction("/control/subscriptions/\(bought.purchaseToken)/cancel")
            try await fixture.advance(days: 5)
            let again = try await fixture.controlAction(
                "/control/subscriptions/\(bought.purchaseToken)/change-plan",
                ChangePlanRequest(productId: "pro", basePlanId: "monthly"))
            #expect(try await fixture.subscription(again.purchaseToken).linkedPurchaseToken == bought.purchaseToken)
            #expect(try await fixture.subscription(bought.purchaseToken).subscriptionState == .expired)
            // Once expired, a subscription can no longer be replaced: a new purchase is not linked.
            try await fixture.advance(days: 40)
            let late = try await fixture.control(
                .POST, "/control/subscriptions/\(bought.purchaseToken)/change-plan",
                ChangePlanRequest(productId: "pro", basePlanId: "monthly"))
            #expect(late.status == 409)
        }
    }

    @Test func failedPaymentGoesThroughGraceAndHoldAndRecovers() async throws {
        try await PlayFixture.with { fixture in
            let bought = try await fixture.buy("pro", basePlanId: "monthly")
            try await fixture.acknowledge(bought)
            _ = try await fixture.controlAction("/control/subscriptions/\(bought.purchaseToken)/billing-failure")
            try await fixture.advance(days: 31)
            var purchase = try await fixture.subscription(bought.purchaseToken)
            #expect(purchase.subscriptionState == .inGracePeriod)
            #expect(purchase.inGracePeriodStateContext != nil)
            // Entitled through the grace period.
            #expect(purchase.expiry == RFC3339.parse("2025-02-04T00:00:00Z"))
            try await fixture.advance(days: 3)
            purchase = try await fixture.subscription(bought.purchaseToken)
            #expect(purchase.subscriptionState == .onHold)
            #expect(purchase.expiry == RFC3339.parse("2025-02-01T00:00:00Z"))
            let recovered = try await fixture.controlAction(
                "/control/subscriptions/\(bought.purchaseToken)/billing-recovery")
            #expect(recovered.state == "active")
            purchase = try await fixture.subscription(bought.purchaseToken)
            #expect(purchase.subscriptionState == .active)
            // On hold, the new period starts at recovery (2025-02-04).
            #expect(purchase.expiry == RFC3339.parse("2025-03-04T00:00:00Z"))
            #expect(
                try fixture.pushedTypes(bought.purchaseToken) == [.purchased, .inGracePeriod, .onHold, .recovered])
        }
    }

    @Test func holdRunningOutCancelsAndExpires() async throws {
        try await PlayFixture.with { fixture in
            let bought = try await fixture.buy("pro", basePlanId: "monthly")
            try await fixture.acknowledge(bought)
            _ = try await fixture.controlAction("/control/subscriptions/\(bought.purchaseToken)/billing-failure")
            try await fixture.advance(days: 31 + 3 + 30)
            let purchase = try await fixture.subscription(bought.purchaseToken)
            #expect(purchase.subscriptionState == .expired)
            #expect(purchase.canceledStateContext?.initiator == .system)
            #expect(
                try fixture.pushedTypes(bought.purchaseToken) == [
                    .purchased, .inGracePeriod, .onHold, .canceled, .expired,
                ])
        }
    }

    @Test func cancelRestartPauseAndResume() async throws {
        try await PlayFixture.with { fixture in
            let bought = try await fixture.buy("pro", basePlanId: "monthly")
            try await fixture.acknowledge(bought)
            let token = bought.purchaseToken
            _ = try await fixture.controlAction("/control/subscriptions/\(token)/cancel")
            var purchase = try await fixture.subscription(token)
            #expect(purchase.subscriptionState == .canceled)
            #expect(
                purchase.canceledStateContext?.userInitiatedCancellation?.cancelTime == GoogleTime.format(Self.start))
            #expect(purchase.lineItems?.first?.autoRenewingPlan?.autoRenewEnabled == false)
            _ = try await fixture.controlAction("/control/subscriptions/\(token)/restart")
            _ = try await fixture.controlAction("/control/subscriptions/\(token)/pause", PauseRequest(days: 30))
            try await fixture.advance(days: 32)
            purchase = try await fixture.subscription(token)
            #expect(purchase.subscriptionState == .paused)
            #expect(purchase.pausedStateContext?.autoResume == RFC3339.parse("2025-03-03T00:00:00Z"))
            try await fixture.advance(days: 30)
            purchase = try await fixture.subscription(token)
            #expect(purchase.subscriptionState == .active)
            #expect(purchase.expiry == RFC3339.parse("2025-04-03T00:00:00Z"))
            #expect(
                try fixture.pushedTypes(token) == [
                    .purchased, .canceled, .restarted, .pauseScheduleChanged, .paused, .recovered,
                ])
        }
    }

    @Test func canceledSubscriptionExpiresAtThePeriodsEnd() async throws {
        try await PlayFixture.with { fixture in
            let bought = try await fixture.buy("pro", basePlanId: "yearly")
            try await fixture.acknowledge(bought)
            _ = try await fixture.controlAction("/control/subscriptions/\(bought.purchaseToken)/cancel")
            try await fixture.advance(days: 365)
            let purchase = try await fixture.subscription(bought.purchaseToken)
            #expect(purchase.subscriptionState == .expired)
            #expect(purchase.expiry == RFC3339.parse("2026-01-01T00:00:00Z"))
            #expect(try fixture.pushedTypes(bought.purchaseToken) == [.purchased, .canceled, .expired])
            // Sixty days after expiry, Google no longer answers for the token.
            try await fixture.advance(days: 61)
            let gone = try await fixture.call(
                .getSubscriptionV2(packageName: PlayFixture.packageName, token: bought.purchaseToken))
            #expect(gone.status == 410)
            #expect(try gone.decode(GoogleAPIErrorBody.self).error.code == 410)
        }
    }
}
