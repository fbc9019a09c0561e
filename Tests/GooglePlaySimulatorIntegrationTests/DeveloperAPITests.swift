import Foundation
import GooglePlay
import GooglePlaySimulator
import SubLedgerCore
import Testing
import _CryptoExtras

@Suite struct DeveloperAPITests {
    @Test func requestsNeedAnAccessTokenOfTheExportedServiceAccount() async throws {
        try await PlayFixture.with { fixture in
            let bought = try await fixture.buy("pro", basePlanId: "monthly")
            let url =
                fixture.simulator.developerAPIBaseURL
                + AndroidPublisherRoute.getSubscriptionV2(
                    packageName: PlayFixture.packageName, token: bought.purchaseToken
                )
                .path
            let anonymous = try await fixture.send(.GET, url)
            #expect(anonymous.status == 401)
            #expect(try anonymous.decode(GoogleAPIErrorBody.self).error.status == "UNAUTHENTICATED")
            let bogus = try await fixture.send(.GET, url, headers: [("Authorization", "Bearer ya29.nothing")])
            #expect(bogus.status == 401)

            // An assertion signed by a key the simulator never issued is refused by the token endpoint.
            let real = try await fixture.serviceAccount()
            let stranger = ServiceAccountKey(
                projectID: nil, privateKeyID: real.privateKeyID, clientEmail: real.clientEmail, clientID: nil,
                tokenURI: real.tokenURI, privateKey: try _RSA.Signing.PrivateKey(keySize: .bits2048))
            let refused = try await fixture.send(
                .POST, real.tokenURI,
                body: Data(OAuthTokenExchange.formBody(assertion: try stranger.assertion(now: WallClock.now())).utf8))
            #expect(refused.status == 400)
            #expect(try refused.decode(OAuthErrorResponse.self).error == "invalid_grant")
            // So is an expired one of the real account.
            let stale = try await fixture.send(
                .POST, real.tokenURI,
                body: Data(
                    OAuthTokenExchange.formBody(
                        assertion: try real.assertion(now: WallClock.now().adding(milliseconds: -7_200_000))
                    ).utf8))
            #expect(stale.status == 400)

            let token = try await fixture.accessToken()
            let answer = try await fixture.send(.GET, url, headers: [("Authorization", "Bearer " + token)])
            #expect(answer.status == 200)
        }
    }

    @Test func unknownPackagesAndTokensAnswerAsGoogleDoes() async throws {
        try await PlayFixture.with { fixture in
            let unknownPackage = try await fixture.call(.getSubscriptionV2(packageName: "com.other.app", token: "x"))
            #expect(unknownPackage.status == 404)
            let unknownToken = try await fixture.call(
                .getSubscriptionV2(packageName: PlayFixture.packageName, token: "not-a-token"))
            #expect(unknownToken.status == 400)
            #expect(try unknownToken.decode(GoogleAPIErrorBody.self).error.status == "INVALID_ARGUMENT")
            let coins = try await fixture.buy("coins")
            // A one-time token is not a subscription token, and the product id must match.
            #expect(
                try await fixture.call(
                    .getSubscriptionV2(packageName: PlayFixture.packageName, token: coins.purchaseToken)
                ).status == 400)
            #expect(
                try await fixture.call(
                    .getProduct(packageName: PlayFixture.packageName, productId: "lifetime", token: coins.purchaseToken)
                ).status == 400)
        }
    }

    @Test func consumeAcknowledgesAndOnlyConsumablesConsume() async throws {
        try await PlayFixture.with { fixture in
            let coins = try await fixture.buy("coins", test: true)
            let lifetime = try await fixture.buy("lifetime")
            let package = PlayFixture.packageName
            #expect(
                try await fixture.call(
                    .consumeProduct(packageName: package, productId: "coins", token: coins.purchaseToken)
                )
                .status == 200)
            let again = try await fixture.call(
                .consumeProduct(packageName: package, productId: "coins", token: coins.purchaseToken))
            #expect(again.status == 400)
            #expect(
                try await fixture.call(
                    .consumeProduct(packageName: package, productId: "lifetime", token: lifetime.purchaseToken)
                ).status == 400)
            let v1 = try await fixture.call(
                .getProduct(packageName: package, productId: "coins", token: coins.purchaseToken)
            )
            .decode(ProductPurchase.self)
            #expect(v1.isConsumed && v1.isAcknowledged && v1.isTestPurchase && v1.isPurchased)
            #expect(v1.obfuscatedExternalAccountId == "account-1")
            let v2 = try await fixture.call(.getProductV2(packageName: package, token: coins.purchaseToken))
                .decode(ProductPurchaseV2.self)
            #expect(v2.productLineItem?.first?.productOfferDetails?.consumptionState == .consumed)
            #expect(v2.testPurchaseContext?.fopType == "TEST")
            #expect(v2.acknowledgementState == .acknowledged)
            // Consumed in time: three days later it is not refunded.
            try await fixture.advance(days: 4)
            let later = try await fixture.call(
                .getProduct(packageName: package, productId: "coins", token: coins.purchaseToken))
            #expect(try later.decode(ProductPurchase.self).isPurchased)
        }
    }

    @Test func revokeThroughTheAPIEndsAndVoidsCancelStopsRenewalDeferMovesExpiry() async throws {
        try await PlayFixture.with { fixture in
            let package = PlayFixture.packageName
            let revoked = try await fixture.buy("pro", basePlanId: "monthly")
            try await fixture.acknowledge(revoked)
            let invalid = try await fixture.call(
                .revokeSubscriptionV2(packageName: package, token: revoked.purchaseToken),
                body: RevokeSubscriptionPurchaseRequest(revocationContext: RevocationContext()))
            #expect(invalid.status == 400)
            let answer = try await fixture.call(
                .revokeSubscriptionV2(packageName: package, token: revoked.purchaseToken),
                body: RevokeSubscriptionPurchaseRequest(
                    revocationContext: RevocationContext(fullRefund: EmptyContext())))
            #expect(answer.status == 200)
            let ended = try await fixture.subscription(revoked.purchaseToken)
            #expect(ended.subscriptionState == .expired)
            #expect(ended.canceledStateContext?.initiator == .developer)
            #expect(try fixture.pushedTypes(revoked.purchaseToken) == [.purchased, .revoked])
            let voided = try await fixture.call(.listVoidedPurchases(packageName: package), query: "?type=1")
                .decode(VoidedPurchasesListResponse.self).voidedPurchases
            #expect(voided?.first?.source == .developer)
            #expect(voided?.first?.orderId == revoked.orderId)

            let canceled = try await fixture.buy("pro", basePlanId: "monthly")
            try await fixture.acknowledge(canceled)
            _ = try await fixture.call(
                .cancelSubscriptionV2(packageName: package, token: canceled.purchaseToken),
                body: CancelSubscriptionPurchaseRequest(
                    cancellationContext: CancellationContext(cancellationType: .userRequestedStopRenewals)))
            let state = try await fixture.subscription(canceled.purchaseToken)
            #expect(state.subscriptionState == .canceled)
            #expect(state.canceledStateContext?.initiator == .developer)

            let deferred = try await fixture.buy("pro", basePlanId: "monthly")
            try await fixture.acknowledge(deferred)
            let tooShort = try await fixture.call(
                .deferSubscriptionV2(packageName: package, token: deferred.purchaseToken),
                body: DeferSubscriptionPurchaseRequest(deferralContext: DeferralContext(deferDuration: "60s")))
            #expect(tooShort.status == 400)
            let moved = try await fixture.call(
                .deferSubscriptionV2(packageName: package, token: deferred.purchaseToken),
                body: DeferSubscriptionPurchaseRequest(deferralContext: DeferralContext(deferDuration: "864000s")))
            #expect(
                try moved.decode(DeferSubscriptionPurchaseResponse.self).itemExpiryTimeDetails?.first?.expiryTime
                    == "2025-02-11T00:00:00.000Z")
            #expect(
                try await fixture.subscription(deferred.purchaseToken).expiry == RFC3339.parse("2025-02-11T00:00:00Z"))
            #expect(try fixture.pushedTypes(deferred.purchaseToken) == [.purchased, .deferred])
        }
    }

    @Test func voidedPurchasesArePagedByContinuationToken() async throws {
        try await PlayFixture.with { fixture in
            var tokens: [String] = []
            for _ in 0..<3 {
                let bought = try await fixture.buy("coins")
                tokens.append(bought.purchaseToken)
                _ = try await fixture.controlAction(
                    "/control/purchases/\(bought.purchaseToken)/refund", RefundRequest())
                try await fixture.advance(hours: 1)
            }
            let package = PlayFixture.packageName
            let first = try await fixture.call(.listVoidedPurchases(packageName: package), query: "?maxResults=2")
                .decode(VoidedPurchasesListResponse.self)
            #expect(first.voidedPurchases?.compactMap(\.purchaseToken) == Array(tokens.prefix(2)))
            #expect(first.voidedPurchases?.first?.reason == .remorse)
            let next = try #require(first.tokenPagination?.nextPageToken)
            let second = try await fixture.call(
                .listVoidedPurchases(packageName: package),
                query: "?maxResults=2&token="
                    + (next.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? next)
            ).decode(VoidedPurchasesListResponse.self)
            #expect(second.voidedPurchases?.compactMap(\.purchaseToken) == [tokens[2]])
            #expect(second.tokenPagination == nil)
            let bad = try await fixture.call(.listVoidedPurchases(packageName: package), query: "?token=zzz")
            #expect(bad.status == 400)
            let future = try await fixture.call(
                .listVoidedPurchases(packageName: package), query: "?endTime=99999999999999")
            #expect(future.status == 400)
        }
    }
}
