import Foundation
import Paddle
import PaddleClients
import SubLedgerCore
import Testing

/// Refunds and chargebacks read back as adjustments, and what they take back of a sale.
@Suite struct PaddleAPIAdjustmentTests {
    @Test func aRefundWaitsForApprovalThenRevokesTheSale() async throws {
        try await PaddleFixture.with { fixture in
            let (_, price) = try await fixture.monthlyPrice()
            let (transactionID, subscriptionID) = try await fixture.subscribe(price: price)
            await fixture.simulator.control.advance(seconds: 2 * 86_400)
            let refundID = try await fixture.refund(transactionID)

            let pending = try await fixture.api.adjustments(transactionID: transactionID)
            #expect(pending.map(\.id) == [refundID])
            let refund = try #require(pending.first)
            #expect(refund.action == .refund && refund.type == .full && refund.status == .pendingApproval)
            #expect(refund.subscriptionID == subscriptionID && refund.createdAt == PaddleFixture.day(2))
            // The whole total back; Paddle's fee given back in proportion, so the earnings it takes are the seller's.
            #expect(
                refund.totals
                    == PaddleAdjustment.Totals(
                        subtotal: 1000, tax: 100, total: 1100, fee: 105, earnings: 895, retainedFee: 0,
                        currencyCode: "USD"))
            #expect(try await fixture.api.reading(ofTransaction: transactionID).sale()?.revocationDate == nil)

            await fixture.simulator.control.advance(seconds: 600)  // the sandbox approves refunds ten minutes later
            let reading = try await fixture.api.reading(ofTransaction: transactionID)
            #expect(reading.adjustments.map(\.status) == [.approved])
            let sale = try #require(try reading.sale())
            #expect(sale.revocationDate == PaddleFixture.day(2, seconds: 600) && sale.partialRefunds == nil)
            // The refund gave Paddle's whole fee back, and took the earnings back in the payout currency.
            #expect(sale.refundedFee == 1050 && sale.payout?.refundedEarnings == 8950)
            #expect(try await fixture.api.adjustments(subscriptionID: subscriptionID).map(\.id) == [refundID])
        }
    }

    @Test func aPartialRefundIsListedAndKeepsThePeriod() async throws {
        try await PaddleFixture.with { fixture in
            let (_, price) = try await fixture.monthlyPrice()
            let (transactionID, _) = try await fixture.subscribe(price: price)
            let refundID = try await fixture.refund(transactionID, amount: "330")
            try await fixture.simulator.control.decideRefund(refundID, approve: true)

            let reading = try await fixture.api.reading(ofTransaction: transactionID)
            let refund = try #require(reading.adjustments.first)
            #expect(refund.type == .partial && refund.totals.total == 330 && refund.totals.tax == 30)
            let sale = try #require(try reading.sale())
            #expect(sale.revocationDate == nil && sale.period?.endsAt == PaddleFixture.day(31))
            // Paddle's fee given back in proportion (105 × 330 / 1100, rounded), the earnings taken back less it.
            #expect(
                sale.partialRefunds == [
                    PartialRefund(date: PaddleFixture.start, amount: 3300, fee: 320, payoutEarnings: 2680)
                ])
        }
    }

    @Test func aChargebackIsAnApprovedAdjustmentThatRevokes() async throws {
        try await PaddleFixture.with { fixture in
            let (_, price) = try await fixture.monthlyPrice()
            let (transactionID, _) = try await fixture.subscribe(price: price)
            await fixture.simulator.control.advance(seconds: 86_400)
            let chargebackID = try await fixture.simulator.control.chargeback(transactionID, amount: nil)

            let reading = try await fixture.api.reading(ofTransaction: transactionID)
            let chargeback = try #require(reading.adjustments.first)
            #expect(chargeback.id == chargebackID && chargeback.action == .chargeback && chargeback.status == .approved)
            #expect(try reading.sale()?.revocationDate == PaddleFixture.day(1))
        }
    }
}
