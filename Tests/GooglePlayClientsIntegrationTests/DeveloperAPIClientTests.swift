import BoundedHTTP
import Foundation
import GooglePlay
import GooglePlayClients
import GooglePlaySimulator
import SubLedgerCore
import Testing

@Suite struct DeveloperAPIClientTests {
    static let package = ClientFixture.packageName

    @Test func aSubscriptionReadsBackAndShowsItsAcknowledgement() async throws {
        try await ClientFixture.with { fixture in
            let bought = try await fixture.buy("pro", basePlanId: "monthly", account: "account-7")
            let read = try await fixture.api.subscriptionV2(packageName: Self.package, token: bought.purchaseToken)
            #expect(read.subscriptionState == .active)
            #expect(read.acknowledgementState == .pending)
            #expect(read.lineItems?.count == 1)
            #expect(read.lineItems?.first?.productId == "pro")
            #expect(read.lineItems?.first?.offerDetails?.basePlanId == "monthly")
            #expect(read.latestOrderId == bought.orderId)
            #expect(read.externalAccountIdentifiers?.obfuscatedExternalAccountId == "account-7")
            let start = try #require(read.start)
            let expiry = try #require(read.expiry)
            #expect(expiry > start)

            try await fixture.api.acknowledgeSubscription(
                packageName: Self.package, subscriptionId: "pro", token: bought.purchaseToken)
            let acknowledged = try await fixture.api.subscriptionV2(
                packageName: Self.package, token: bought.purchaseToken)
            #expect(acknowledged.acknowledgementState == .acknowledged)
        }
    }

    @Test func cancelStopsRenewalAndRevokeEndsTheSubscription() async throws {
        try await ClientFixture.with { fixture in
            let bought = try await fixture.buy("pro", basePlanId: "monthly")
            try await fixture.api.cancelSubscription(packageName: Self.package, token: bought.purchaseToken)
            let canceled = try await fixture.api.subscriptionV2(packageName: Self.package, token: bought.purchaseToken)
            #expect(canceled.subscriptionState == .canceled)
            #expect(canceled.canceledStateContext?.initiator == .developer)

            try await fixture.api.revokeSubscription(
                packageName: Self.package, token: bought.purchaseToken, context: RevocationContext(fullRefund: .init()))
            let revoked = try await fixture.api.subscriptionV2(packageName: Self.package, token: bought.purchaseToken)
            #expect(revoked.subscriptionState == .expired)
        }
    }

    @Test func aConsumableIsConsumedOnce() async throws {
        try await ClientFixture.with { fixture in
            let coins = try await fixture.buy("coins")
            let before = try await fixture.api.product(
                packageName: Self.package, productId: "coins", token: coins.purchaseToken)
            #expect(!before.isConsumed)
            #expect(!before.isAcknowledged)

            try await fixture.api.consumeProduct(
                packageName: Self.package, productId: "coins", token: coins.purchaseToken)
            let after = try await fixture.api.product(
                packageName: Self.package, productId: "coins", token: coins.purchaseToken)
            #expect(after.isConsumed)
            #expect(after.isAcknowledged)
            let v2 = try await fixture.api.productV2(packageName: Self.package, token: coins.purchaseToken)
            #expect(v2.orderId == coins.orderId)
            #expect(v2.acknowledgementState == .acknowledged)

            let again = await #expect(throws: GooglePlayAPIError.self) {
                try await fixture.api.consumeProduct(
                    packageName: Self.package, productId: "coins", token: coins.purchaseToken)
            }
            #expect(again?.code == .invalidArgument)
            #expect(again?.httpStatus == 400)
        }
    }

    @Test func aProductIsAcknowledged() async throws {
        try await ClientFixture.with { fixture in
            let coins = try await fixture.buy("coins")
            try await fixture.api.acknowledgeProduct(
                packageName: Self.package, productId: "coins", token: coins.purchaseToken, developerPayload: "p")
            let read = try await fixture.api.product(
                packageName: Self.package, productId: "coins", token: coins.purchaseToken)
            #expect(read.isAcknowledged)
            #expect(!read.isConsumed)
        }
    }

    @Test func voidedPurchasesArePagedWithTheContinuationToken() async throws {
        try await ClientFixture.with { fixture in
            var refunded: Set<String> = []
            for _ in 0..<5 {
                let coins = try await fixture.buy("coins")
                _ = try await fixture.simulator.control.refund(coins.purchaseToken, RefundRequest())
                refunded.insert(coins.purchaseToken)
            }
            let subscription = try await fixture.buy("pro", basePlanId: "monthly")
            _ = try await fixture.simulator.control.refund(subscription.purchaseToken, RefundRequest())

            let query = GooglePlayDeveloperAPI.VoidedPurchasesQuery(includeSubscriptions: false, maxResults: 2)
            let first = try await fixture.api.voidedPurchases(packageName: Self.package, query: query)
            #expect(first.voidedPurchases?.count == 2)
            let next = try #require(first.tokenPagination?.nextPageToken)
            let second = try await fixture.api.voidedPurchases(packageName: Self.package, query: query, pageToken: next)
            #expect(second.voidedPurchases?.count == 2)
            let firstTokens = Set(first.voidedPurchases?.compactMap(\.purchaseToken) ?? [])
            let secondTokens = Set(second.voidedPurchases?.compactMap(\.purchaseToken) ?? [])
            #expect(firstTokens.isDisjoint(with: secondTokens))

            // Three pages of one-time products; with subscriptions, one more purchase.
            let all = try await fixture.api.allVoidedPurchases(packageName: Self.package, query: query)
            #expect(Set(all.compactMap(\.purchaseToken)) == refunded)
            #expect(all.count == 5)
            let withSubscriptions = try await fixture.api.allVoidedPurchases(
                packageName: Self.package, query: .init(includeSubscriptions: true, maxResults: 2))
            let expected = refunded.union([subscription.purchaseToken])
            #expect(Set(withSubscriptions.compactMap(\.purchaseToken)) == expected)
        }
    }

    @Test func serverErrorsAreRetriedWithJitteredExponentialBackoff() async throws {
        try await ClientFixture.with { fixture in
            let bought = try await fixture.buy("pro", basePlanId: "monthly")
            try fixture.simulator.control.setFault(FaultRule(kind: "http_503", remaining: 2), for: .developerApi)
            let read = try await fixture.api.subscriptionV2(packageName: Self.package, token: bought.purchaseToken)
            #expect(read.subscriptionState == .active)
            // 500 ms, then 1 s, each less a quarter for the jitter draw of 0.5 (jitter 0.5).
            #expect(fixture.sleeps.all == [.milliseconds(375), .milliseconds(750)])
        }
    }

    @Test func retriesStopAtTheAttemptLimit() async throws {
        try await ClientFixture.with(retry: RetryPolicy(maximumAttempts: 3)) { fixture in
            let bought = try await fixture.buy("pro", basePlanId: "monthly")
            try fixture.simulator.control.setFault(FaultRule(kind: "http_500"), for: .developerApi)
            let failure = await #expect(throws: GooglePlayAPIError.self) {
                try await fixture.api.subscriptionV2(packageName: Self.package, token: bought.purchaseToken)
            }
            #expect(failure?.code == .serverError)
            #expect(failure?.httpStatus == 500)
            #expect(failure?.status == "INTERNAL")
            #expect(fixture.sleeps.all.count == 2)
            // A refusal is not retried.
            fixture.simulator.control.clearFaults()
            _ = await #expect(throws: GooglePlayAPIError.self) {
                try await fixture.api.subscriptionV2(packageName: Self.package, token: "no-such-token")
            }
            #expect(fixture.sleeps.all.count == 2)
        }
    }

    @Test func googlesRefusalsMapToTypedErrors() async throws {
        try await ClientFixture.with { fixture in
            let unknownPackage = await #expect(throws: GooglePlayAPIError.self) {
                try await fixture.api.subscriptionV2(packageName: "com.other.app", token: "x")
            }
            #expect(unknownPackage?.code == .notFound)
            #expect(unknownPackage?.status == "NOT_FOUND")
            #expect(unknownPackage?.reason == "applicationNotFound")

            let unknownToken = await #expect(throws: GooglePlayAPIError.self) {
                try await fixture.api.subscriptionV2(packageName: Self.package, token: "not-a-token")
            }
            #expect(unknownToken?.code == .invalidArgument)

            // A subscription expired for more than 60 days is gone (410).
            let bought = try await fixture.buy("pro", basePlanId: "monthly")
            _ = try await fixture.simulator.control.cancel(bought.purchaseToken)
            _ = try await fixture.simulator.control.advanceClock(ClockAdvanceRequest(days: 100))
            let gone = await #expect(throws: GooglePlayAPIError.self) {
                try await fixture.api.subscriptionV2(packageName: Self.package, token: bought.purchaseToken)
            }
            #expect(gone?.code == .purchaseNoLongerAvailable)
            #expect(gone?.httpStatus == 410)
            #expect(gone?.reason == "subscriptionPurchaseNoLongerAvailable")

            // Nothing is sent for an empty token.
            let empty = await #expect(throws: GooglePlayAPIError.self) {
                try await fixture.api.subscriptionV2(packageName: Self.package, token: "")
            }
            #expect(empty?.code == .invalidRequest)
            #expect(fixture.sleeps.all.isEmpty)
        }
    }

    @Test func theBackoffIsBoundedAndHonoursRetryAfter() {
        let policy = RetryPolicy(initialDelay: .milliseconds(500), maximumDelay: .seconds(8), jitter: 0.5)
        #expect(policy.delay(afterAttempt: 0, random: 0) == .milliseconds(500))
        #expect(policy.delay(afterAttempt: 3, random: 0) == .seconds(4))
        #expect(policy.delay(afterAttempt: 10, random: 0) == .seconds(8))
        #expect(policy.delay(afterAttempt: 10, random: 0.999_999) > .seconds(4))
        #expect(policy.delay(afterAttempt: 0, random: 1, retryAfterSeconds: 3) == .seconds(3))
        #expect(policy.delay(afterAttempt: 0, random: 0, retryAfterSeconds: 3600) == .seconds(8))
    }
}
