import Foundation
import GooglePlay
import GooglePlaySimulator
import SubLedgerCore
import Testing

/// play-sim's Orders API (`orders.get`, `orders.batchGet`): every order of a token, the first and each renewal, with
/// the period it paid for, its price and offer phase and its state; a batch fails whole on an order it does not have.
@Suite struct OrdersAPITests {
    static func batch(_ fixture: PlayFixture, package: String = PlayFixture.packageName, _ ids: [String])
        async throws -> PlayFixture.Answer
    {
        let query = ids.isEmpty ? "" : "?" + ids.map { "orderIds=" + $0 }.joined(separator: "&")
        return try await fixture.call(.batchGetOrders(packageName: package), query: query)
    }

    @Test func aBatchAnswersEveryOrderOfATokenWithThePeriodItPaidFor() async throws {
        try await PlayFixture.with { fixture in
            let bought = try await fixture.buy("pro", basePlanId: "monthly", offerId: "trial")
            try await fixture.acknowledge(bought)
            try await fixture.advance(days: 7)
            try await fixture.advance(days: 31)
            let ids = [bought.orderId, bought.orderId + "..0", bought.orderId + "..1"]
            let answer = try await Self.batch(fixture, ids.reversed())
            #expect(answer.status == 200, "\(answer.text)")
            let orders = try #require(try answer.decode(BatchGetOrdersResponse.self).orders)
            // In the order asked.
            #expect(orders.map(\.orderId) == ids.reversed())
            let byID = Dictionary(uniqueKeysWithValues: orders.map { ($0.orderId ?? "", $0) })
            let first = try #require(byID[bought.orderId])
            let renewals = [try #require(byID[ids[1]]), try #require(byID[ids[2]])]
            for order in orders {
                #expect(order.purchaseToken == bought.purchaseToken)
                #expect(order.state == .processed)
                #expect(order.lineItems?.first?.productId == "pro")
                #expect(order.lineItems?.first?.subscriptionDetails?.basePlanId == "monthly")
                #expect(order.lineItems?.first?.subscriptionDetails?.offerId == "trial")
            }
            // The free trial's order is free; each renewal charges the base plan's price.
            #expect(first.lineItems?.first?.subscriptionDetails?.offerPhase == .freeTrial)
            #expect(first.total?.micros == 0)
            for renewal in renewals {
                #expect(renewal.lineItems?.first?.subscriptionDetails?.offerPhase == .base)
                #expect(renewal.total == Money(currencyCode: "USD", units: "9", nanos: 990_000_000))
            }
            // The periods follow each other: the trial's week, then a month each.
            let periods = [first, renewals[0], renewals[1]].map { order in
                (
                    order.lineItems?.first?.subscriptionDetails?.servicePeriodStart,
                    order.lineItems?.first?.subscriptionDetails?.servicePeriodEnd
                )
            }
            let expected = ["2025-01-01", "2025-01-08", "2025-02-08", "2025-03-08"].map {
                RFC3339.parse($0 + "T00:00:00Z")
            }
            #expect(periods.map { $0.0 } == Array(expected.prefix(3)))
            #expect(periods.map { $0.1 } == Array(expected.suffix(3)))
            #expect(renewals[1].createTime == "2025-02-08T00:00:00.000Z")

            // One order alone; a refund marks the latest order refunded and leaves the others.
            _ = try await fixture.controlAction("/control/purchases/\(bought.purchaseToken)/refund", RefundRequest())
            let latest = try await fixture.call(.getOrder(packageName: PlayFixture.packageName, orderId: ids[2]))
            #expect(latest.status == 200)
            #expect(try latest.decode(GooglePlayOrder.self).state == .refunded)
            let again = try await Self.batch(fixture, ids)
            #expect(
                try again.decode(BatchGetOrdersResponse.self).orders?.map(\.state) == [
                    .processed, .processed, .refunded,
                ])
        }
    }

    @Test func aBatchWithAnOrderGoogleDoesNotHaveFailsWhole() async throws {
        try await PlayFixture.with { fixture in
            let bought = try await fixture.buy("pro", basePlanId: "monthly")
            #expect(try await Self.batch(fixture, [bought.orderId]).status == 200)
            // An order id never issued, or a renewal that has not happened: the whole request fails.
            for unknown in ["GPA.3000-0000-0000-00000", bought.orderId + "..0"] {
                let answer = try await Self.batch(fixture, [bought.orderId, unknown])
                #expect(answer.status == 404)
                #expect(try answer.decode(GoogleAPIErrorBody.self).error.status == "NOT_FOUND")
                let alone = try await fixture.call(.getOrder(packageName: PlayFixture.packageName, orderId: unknown))
                #expect(alone.status == 404)
            }
            // Another package's order is not this package's.
            let other = PackageDefinition(
                packageName: "com.example.other",
                subscriptions: [
                    SubscriptionDefinition(
                        productId: "pro",
                        basePlans: [BasePlanDefinition(basePlanId: "monthly", billingPeriod: .oneMonth)])
                ])
            _ = try fixture.simulator.control.createPackage(other)
            #expect(try await Self.batch(fixture, package: "com.example.other", [bought.orderId]).status == 404)
            // Repeated ids, no ids, more than 1000: refused as invalid.
            #expect(try await Self.batch(fixture, [bought.orderId, bought.orderId]).status == 400)
            #expect(try await Self.batch(fixture, []).status == 400)
            let many = (0..<1001).map { "GPA.\($0)" }
            #expect(try await Self.batch(fixture, many).status == 400)
            // Without an access token, nothing is answered.
            let anonymous = try await fixture.send(
                .GET,
                fixture.simulator.developerAPIBaseURL
                    + AndroidPublisherRoute.batchGetOrders(packageName: PlayFixture.packageName).path + "?orderIds="
                    + bought.orderId)
            #expect(anonymous.status == 401)
        }
    }
}
