import Foundation
import Paddle
import PaddleClients
import SubLedgerCore
import Testing

/// The client reads back what a customer, a bank and time did at paddle-sim, with the values Paddle states.
@Suite struct PaddleAPIReadTests {
    @Test func aPaidCheckoutReadsBackAsATransactionAndASubscription() async throws {
        try await PaddleFixture.with { fixture in
            let (product, price) = try await fixture.monthlyPrice()
            let (transactionID, subscriptionID) = try await fixture.subscribe(price: price)

            let transaction = try await fixture.api.transaction(transactionID)
            #expect(transaction.status == .completed && transaction.origin == .api)
            #expect(transaction.subscriptionID == subscriptionID && transaction.customerID != nil)
            #expect(transaction.customData == ["subledger_order": "order-ada@example.com"])
            #expect(transaction.currencyCode == "USD" && transaction.billedAt == PaddleFixture.start)
            #expect(
                transaction.billingPeriod
                    == PaddleTimePeriod(startsAt: PaddleFixture.start, endsAt: PaddleFixture.day(31)))
            #expect(transaction.items.map(\.price.productID) == [product])
            #expect(transaction.items.first?.price.billingCycle == PaddleDuration(interval: .month, frequency: 1))
            // paddle-sim: 10 % tax added to the price; Paddle's fee 5 % of the total plus 50.
            #expect(
                transaction.details?.totals
                    == PaddleTransaction.Totals(
                        subtotal: 1000, discount: 0, tax: 100, total: 1100, grandTotal: 1100, fee: 105, earnings: 895,
                        currencyCode: "USD"))
            #expect(
                transaction.details?.payoutTotals
                    == PaddleTransaction.PayoutTotals(
                        subtotal: 1000, tax: 100, total: 1100, fee: 105, earnings: 895, currencyCode: "USD"))

            let subscription = try await fixture.api.subscription(subscriptionID)
            #expect(subscription.status == .active && subscription.customerID == transaction.customerID)
            #expect(subscription.startedAt == PaddleFixture.start && subscription.firstBilledAt == PaddleFixture.start)
            #expect(subscription.nextBilledAt == PaddleFixture.day(31))
            #expect(subscription.currentBillingPeriod == transaction.billingPeriod)
            #expect(subscription.scheduledChange == nil && subscription.productID == product)

            let sale = try #require(try PaddleTransactionReading(transaction: transaction).sale())
            #expect(sale.period == transaction.billingPeriod && sale.subscriptionID == subscriptionID)
            #expect(sale.price == 11_000 && sale.tax == 1000 && sale.processingFee == 1050 && sale.earnings == 8950)
            #expect(sale.payout?.currency == "USD" && sale.accountHint == "order-ada@example.com")
        }
    }

    @Test func theClockRenewsAndEachPeriodIsATransaction() async throws {
        try await PaddleFixture.with { fixture in
            let (_, price) = try await fixture.monthlyPrice(amount: "500", currency: "JPY")
            let (_, subscriptionID) = try await fixture.subscribe(price: price)
            await fixture.simulator.control.advance(seconds: 59 * 86_400)  // past Feb 1 and Mar 1

            let transactions = try await fixture.api.transactions(subscriptionID: subscriptionID)
            #expect(transactions.map(\.origin) == [.api, .subscriptionRecurring, .subscriptionRecurring])
            #expect(transactions.allSatisfy { $0.status == .completed })
            #expect(
                transactions.compactMap(\.billingPeriod?.startsAt) == [
                    PaddleFixture.start, PaddleFixture.day(31), PaddleFixture.day(59),
                ])
            let renewal = try #require(try PaddleTransactionReading(transaction: transactions[2]).sale())
            #expect(renewal.period?.endsAt == PaddleFixture.day(90) && renewal.purchaseDate == PaddleFixture.day(59))
            #expect(renewal.currency == "JPY" && renewal.price == 550_000)  // 500 yen and 10 % tax, in milli-units

            let subscription = try await fixture.api.subscription(subscriptionID)
            #expect(subscription.currentBillingPeriod?.startsAt == PaddleFixture.day(59))
            #expect(subscription.nextBilledAt == PaddleFixture.day(90))
        }
    }

    @Test func aCancellationAtThePeriodsEndIsAScheduledChange() async throws {
        try await PaddleFixture.with { fixture in
            let (_, price) = try await fixture.monthlyPrice()
            let (_, subscriptionID) = try await fixture.subscribe(price: price)
            try await fixture.post("/subscriptions/\(subscriptionID)/cancel", [:])
            let scheduled = try await fixture.api.subscription(subscriptionID)
            #expect(scheduled.status == .active)
            #expect(
                scheduled.scheduledChange
                    == PaddleSubscription.ScheduledChange(action: .cancel, effectiveAt: PaddleFixture.day(31)))
            await fixture.simulator.control.advance(seconds: 40 * 86_400)
            let canceled = try await fixture.api.subscription(subscriptionID)
            #expect(canceled.status == .canceled && canceled.canceledAt == PaddleFixture.day(31))
            #expect(canceled.nextBilledAt == nil && canceled.scheduledChange == nil)
        }
    }

    @Test func subscriptionsArePagedWithTheAfterCursor() async throws {
        try await PaddleFixture.with { fixture in
            let (_, price) = try await fixture.monthlyPrice()
            var made: [String] = []
            for index in 0..<5 {
                made.append(try await fixture.subscribe(price: price, email: "c\(index)@example.com").1)
            }

            var seen: [String] = []
            var after: String?
            var pages = 0
            repeat {
                let page = try await fixture.api.subscriptions(after: after, perPage: 2)
                seen += page.data.map(\.id)
                pages += 1
                after = page.hasMore ? page.nextAfter : nil
            } while after != nil && pages < 10
            #expect(seen == made && pages == 3)
            #expect(try await fixture.api.allSubscriptions().map(\.id) == made)
            let customer = try await fixture.api.subscription(made[1]).customerID
            #expect(try await fixture.api.allSubscriptions(customerID: customer).map(\.id) == [made[1]])
            #expect(try await fixture.api.subscriptions(statuses: [.canceled, .paused]).data.isEmpty)
        }
    }
}
