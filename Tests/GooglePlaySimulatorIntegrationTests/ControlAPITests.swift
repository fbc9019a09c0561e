import Foundation
import GooglePlay
import GooglePlaySimulator
import SubLedgerCore
import Testing

@Suite struct ControlAPITests {
    struct ErrorBody: Decodable {
        struct Detail: Decodable {
            var code: String
            var message: String
        }
        var error: Detail
    }

    @Test func refusalsAreErrorObjectsWithA4xxStatus() async throws {
        try await PlayFixture.with { fixture in
            let notJSON = try await fixture.send(
                .POST, fixture.simulator.baseURL + "/control/purchases", body: Data("{".utf8))
            #expect(notJSON.status == 400)
            #expect(try notJSON.decode(ErrorBody.self).error.code == "bad_request")
            let nul = try await fixture.send(
                .POST, fixture.simulator.baseURL + "/control/purchases",
                body: Data([0x7B, 0x00, 0x7D]))
            #expect(nul.status == 400)
            let unknownProduct = try await fixture.control(
                .POST, "/control/purchases", PurchaseRequest(packageName: PlayFixture.packageName, productId: "nope"))
            #expect(unknownProduct.status == 404)
            let severalPlans = try await fixture.control(
                .POST, "/control/purchases", PurchaseRequest(packageName: PlayFixture.packageName, productId: "pro"))
            #expect(severalPlans.status == 400)
            let longAccount = try await fixture.control(
                .POST, "/control/purchases",
                PurchaseRequest(
                    packageName: PlayFixture.packageName, productId: "coins",
                    obfuscatedExternalAccountId: String(repeating: "a", count: 65)))
            #expect(longAccount.status == 400)
            let longProduct = try await fixture.control(
                .POST, "/control/purchases",
                PurchaseRequest(packageName: PlayFixture.packageName, productId: String(repeating: "p", count: 10_000)))
            #expect(longProduct.status == 400)
            #expect(longProduct.body.count < 1000)
            let unknownToken = try await fixture.control(
                .POST, "/control/subscriptions/nope/cancel", [String: String]())
            #expect(unknownToken.status == 404)
            let badPause = try await fixture.control(
                .POST, "/control/subscriptions/nope/pause", PauseRequest(days: 500))
            #expect(badPause.status == 400)
            let hugeAdvance = try await fixture.control(
                .POST, "/control/clock/advance", ClockAdvanceRequest(days: Int64.max))
            #expect(hugeAdvance.status == 400)
            let negative = try await fixture.control(.POST, "/control/clock/advance", ClockAdvanceRequest(hours: -1))
            #expect(negative.status == 400)
            let badPackage = try await fixture.control(
                .POST, "/control/packages",
                PackageDefinition(
                    packageName: "com.bad",
                    subscriptions: [
                        SubscriptionDefinition(
                            productId: "x",
                            basePlans: [
                                BasePlanDefinition(basePlanId: "m", billingPeriod: .oneMonth, gracePeriodDays: 5)
                            ])
                    ]))
            #expect(badPackage.status == 400)
            #expect(try badPackage.decode(ErrorBody.self).error.message.contains("grace_period_days"))
            // The same package with an allowed grace period is created over HTTP.
            let goodPackage = try await fixture.control(
                .POST, "/control/packages",
                PackageDefinition(
                    packageName: "com.good",
                    subscriptions: [
                        SubscriptionDefinition(
                            productId: "x",
                            basePlans: [
                                BasePlanDefinition(
                                    basePlanId: "m", billingPeriod: .oneMonth, gracePeriodDays: 7,
                                    offers: [OfferDefinition(offerId: "t", freeTrialDays: 3)])
                            ])
                    ]))
            #expect(goodPackage.status == 200)
            #expect(
                try goodPackage.decode(PackageDefinition.self, control: true).subscriptions.first?.basePlans.first?
                    .offers.first?.freeTrialDays == 3)
            let badFault = try await fixture.control(.PUT, "/control/faults/developer_api", FaultRule(kind: "explode"))
            #expect(badFault.status == 400)
        }
    }

    @Test func faultsAnswerGoogleErrorsUntilUsedUp() async throws {
        try await PlayFixture.with { fixture in
            let bought = try await fixture.buy("lifetime")
            let set = try await fixture.control(
                .PUT, "/control/faults/developer_api", FaultRule(kind: "http_503", remaining: 1))
            #expect(set.status == 200)
            let route = AndroidPublisherRoute.getProduct(
                packageName: PlayFixture.packageName, productId: "lifetime", token: bought.purchaseToken)
            let failed = try await fixture.call(route)
            #expect(failed.status == 503)
            #expect(try failed.decode(GoogleAPIErrorBody.self).error.status == "UNAVAILABLE")
            #expect(try await fixture.call(route).status == 200)
            // A slow answer is still the normal answer.
            _ = try await fixture.control(
                .PUT, "/control/faults/developer_api", FaultRule(kind: "latency", latencyMs: 1))
            #expect(try await fixture.call(route).decode(ProductPurchase.self).productId == "lifetime")
            let listed = try await fixture.send(.GET, fixture.simulator.baseURL + "/control/faults")
                .decode([String: FaultRule].self, control: true)
            #expect(listed["developer_api"]?.kind == "latency")

            _ = try await fixture.control(.PUT, "/control/faults/token", FaultRule(kind: "http_500"))
            await #expect(throws: FixtureError.self) { try await fixture.accessToken() }
            _ = try await fixture.send(.DELETE, fixture.simulator.baseURL + "/control/faults")
            _ = try await fixture.accessToken()
        }
    }

    @Test func packagesAndPurchasesAreDescribed() async throws {
        try await PlayFixture.with { fixture in
            let packages = try await fixture.send(.GET, fixture.simulator.baseURL + "/control/packages")
                .decode([PackageDefinition].self, control: true)
            #expect(packages == [PlayFixture.package])
            let bought = try await fixture.buy("pro", basePlanId: "yearly")
            let described = try await fixture.send(
                .GET, fixture.simulator.baseURL + "/control/purchases/\(bought.purchaseToken)"
            ).decode(PurchaseDescription.self, control: true)
            #expect(described.state == "active")
            #expect(described.kind == "subscription")
            #expect(described.expiryTime == RFC3339.parse("2026-01-01T00:00:00Z")?.millisecondsSince1970)
            let clock = try await fixture.send(.GET, fixture.simulator.baseURL + "/control/clock")
                .decode(ClockDescription.self, control: true)
            #expect(clock.time == "2025-01-01T00:00:00.000Z")
        }
    }
}
