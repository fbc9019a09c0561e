import Foundation
import Paddle
import SubLedgerCore
import Testing

/// What a paid transaction means to the ledger: the period, the money in milli-units, what was taken back.
@Suite struct PaddleTransactionReadingTests {
    static let start = Instant(millisecondsSince1970: 1_735_689_600_000)  // 2025-01-01T00:00:00Z
    static let end = Instant(millisecondsSince1970: 1_738_368_000_000)  // 2025-02-01T00:00:00Z
    static func at(days: Int64) -> Instant { start.adding(milliseconds: days * 86_400_000) }

    static func transaction(
        status: PaddleTransaction.Status = .completed, currency: String = "USD", total: Int64 = 1100,
        tax: Int64 = 100, fee: Int64? = 105, subscription: String? = "sub_1", trial: Bool = false,
        origin: PaddleTransaction.Origin = .web
    ) -> PaddleTransaction {
        PaddleTransaction(
            id: "txn_1", status: status, customerID: "ctm_1", subscriptionID: subscription, origin: origin,
            customData: ["subledger_order": "order-9", "subledger_app": "com.example.notes"], currencyCode: currency,
            billedAt: start, createdAt: start.adding(milliseconds: -60_000),
            billingPeriod: subscription == nil ? nil : PaddleTimePeriod(startsAt: start, endsAt: end),
            items: [
                .init(
                    price: PaddlePrice(
                        id: "pri_1", productID: "pro_1", billingCycle: PaddleDuration(interval: .month, frequency: 1),
                        trialPeriod: trial ? PaddleDuration(interval: .day, frequency: 14) : nil))
            ],
            details: .init(
                totals: .init(
                    subtotal: total - tax, tax: tax, total: total, grandTotal: total, fee: fee,
                    earnings: fee.map { total - tax - $0 }, currencyCode: currency),
                payoutTotals: .init(subtotal: 920, tax: 92, total: 1012, fee: 97, earnings: 823, currencyCode: "EUR")))
    }

    static func adjustment(
        _ id: String, _ action: PaddleAdjustment.Action, total: Int64, days: Int64,
        status: PaddleAdjustment.Status = .approved, currency: String = "USD"
    ) -> PaddleAdjustment {
        PaddleAdjustment(
            id: id, action: action, type: .partial, transactionID: "txn_1", subscriptionID: "sub_1", status: status,
            currencyCode: currency,
            totals: .init(subtotal: total, tax: 0, total: total, fee: 0, earnings: total, currencyCode: currency),
            createdAt: at(days: days))
    }

    @Test func aPaidRenewalGrantsItsBillingPeriodWithPaddlesMoney() throws {
        let sale = try #require(try PaddleTransactionReading(transaction: Self.transaction()).sale())
        #expect(sale.transactionID == "txn_1" && sale.subscriptionID == "sub_1" && sale.customerID == "ctm_1")
        #expect(sale.productID == "pro_1" && sale.purchaseDate == Self.start)
        #expect(sale.period == PaddleTimePeriod(startsAt: Self.start, endsAt: Self.end) && sale.expiresDate == Self.end)
        #expect(sale.currency == "USD" && sale.price == 11_000 && sale.subtotal == 10_000 && sale.tax == 1000)
        #expect(sale.processingFee == 1050 && sale.earnings == 8950)
        #expect(sale.payout == StatedPayout(currency: "EUR", total: 10_120, tax: 920, fee: 970, earnings: 8230))
        #expect(sale.accountHint == "order-9" && sale.bundleID == "com.example.notes")
        #expect(!sale.isTrialPeriod && sale.revocationDate == nil && sale.partialRefunds == nil)
    }

    @Test func anUnpaidTransactionMeansNothingYet() throws {
        for status: PaddleTransaction.Status in [.draft, .ready, .billed, .pastDue, .canceled, .init(rawValue: "new")] {
            #expect(try PaddleTransactionReading(transaction: Self.transaction(status: status)).sale() == nil)
        }
        #expect(try PaddleTransactionReading(transaction: Self.transaction(status: .paid)).sale() != nil)
    }

    @Test func aOneTimePurchaseGrantsNoPeriodAndZeroDecimalMoneyIsWholeUnits() throws {
        let sale = try #require(
            try PaddleTransactionReading(transaction: Self.transaction(currency: "JPY", subscription: nil)).sale())
        #expect(sale.period == nil && sale.expiresDate == nil && sale.subscriptionID == nil)
        #expect(sale.price == 1_100_000 && sale.tax == 100_000)
    }

    @Test func aTrialsCheckoutIsATrial() throws {
        let trial = Self.transaction(total: 0, tax: 0, fee: 0, trial: true)
        #expect(try PaddleTransactionReading(transaction: trial).sale()?.isTrialPeriod == true)
        let renewal = Self.transaction(total: 0, tax: 0, fee: 0, trial: true, origin: .subscriptionRecurring)
        #expect(try PaddleTransactionReading(transaction: renewal).sale()?.isTrialPeriod == false)
    }

    @Test func approvedRefundsReachingTheTotalRevokeAtTheLatest() throws {
        let reading = PaddleTransactionReading(
            transaction: Self.transaction(),
            adjustments: [
                Self.adjustment("adj_1", .refund, total: 600, days: 3),
                Self.adjustment("adj_2", .refund, total: 500, days: 5),
            ])
        let sale = try #require(try reading.sale())
        #expect(sale.revocationDate == Self.at(days: 5) && sale.partialRefunds == nil)
    }

    /// A refund gives back Paddle's fee less what Paddle retained, and takes back earnings in the payout currency;
    /// once refunds reach the total, the sale states the fee they gave back and the earnings they took back.
    @Test func refundsStateTheFeeTheyGaveBackAndTheEarningsInThePayoutCurrency() throws {
        func refund(_ id: String, total: Int64, fee: Int64, retained: Int64, payout: Int64?, days: Int64)
            -> PaddleAdjustment
        {
            var adjustment = Self.adjustment(id, .refund, total: total, days: days)
            adjustment.totals.fee = fee
            adjustment.totals.retainedFee = retained
            adjustment.totals.earnings = total - fee
            adjustment.payoutTotals = payout.map {
                .init(subtotal: $0, tax: 0, total: $0, fee: 0, earnings: $0, currencyCode: "EUR")
            }
            return adjustment
        }
        let partial = try #require(
            try PaddleTransactionReading(
                transaction: Self.transaction(),
                adjustments: [refund("adj_1", total: 400, fee: 40, retained: 15, payout: 300, days: 2)]
            ).sale())
        #expect(
            partial.partialRefunds == [
                PartialRefund(date: Self.at(days: 2), amount: 4000, fee: 250, payoutEarnings: 3000)
            ])
        #expect(partial.refundedFee == nil && partial.payout?.refundedEarnings == nil)

        let whole = try #require(
            try PaddleTransactionReading(
                transaction: Self.transaction(),
                adjustments: [
                    refund("adj_1", total: 400, fee: 40, retained: 15, payout: 300, days: 2),
                    refund("adj_2", total: 700, fee: 65, retained: 0, payout: 560, days: 4),
                ]
            ).sale())
        #expect(whole.revocationDate == Self.at(days: 4) && whole.partialRefunds == nil)
        #expect(whole.refundedFee == 900)
        #expect(whole.payout?.refundedEarnings == 8600)

        // A fee retained past the fee gives nothing back; a refund not stated in the payout currency leaves the
        // earnings taken back unstated rather than short.
        let unstated = try #require(
            try PaddleTransactionReading(
                transaction: Self.transaction(),
                adjustments: [
                    refund("adj_1", total: 400, fee: 40, retained: 90, payout: nil, days: 2),
                    refund("adj_2", total: 700, fee: 65, retained: 0, payout: 560, days: 4),
                ]
            ).sale())
        #expect(unstated.refundedFee == 650)
        #expect(unstated.payout != nil && unstated.payout?.refundedEarnings == nil)
    }

    @Test func aPartialRefundKeepsThePeriodAndIsListed() throws {
        let reading = PaddleTransactionReading(
            transaction: Self.transaction(),
            adjustments: [
                Self.adjustment("adj_2", .refund, total: 300, days: 6),
                Self.adjustment("adj_1", .refund, total: 200, days: 2),
                // Not money back: pending, rejected, a credit, another currency, another transaction's.
                Self.adjustment("adj_3", .refund, total: 600, days: 7, status: .pendingApproval),
                Self.adjustment("adj_4", .refund, total: 600, days: 7, status: .rejected),
                Self.adjustment("adj_5", .credit, total: 600, days: 7),
                Self.adjustment("adj_6", .refund, total: 600, days: 7, currency: "EUR"),
                {
                    var other = Self.adjustment("adj_7", .refund, total: 1100, days: 7)
                    other.transactionID = "txn_2"
                    return other
                }(),
            ])
        let sale = try #require(try reading.sale())
        #expect(sale.revocationDate == nil)
        #expect(
            sale.partialRefunds == [
                PartialRefund(date: Self.at(days: 2), amount: 2000, fee: 0),
                PartialRefund(date: Self.at(days: 6), amount: 3000, fee: 0),
            ])
    }

    @Test func aChargebackRevokesAndItsReversalRestores() throws {
        var adjustments = [Self.adjustment("adj_1", .chargeback, total: 1100, days: 4)]
        let lost = try #require(
            try PaddleTransactionReading(transaction: Self.transaction(), adjustments: adjustments).sale())
        #expect(lost.revocationDate == Self.at(days: 4))
        adjustments.append(Self.adjustment("adj_2", .chargebackReverse, total: 1100, days: 20))
        let won = try #require(
            try PaddleTransactionReading(transaction: Self.transaction(), adjustments: adjustments).sale())
        #expect(won.revocationDate == nil && won.partialRefunds == nil)
    }

    @Test func inconsistentTotalsAreRefusedWithTheField() throws {
        var taxAboveTotal = Self.transaction()
        taxAboveTotal.details?.totals?.tax = 5000
        #expect(throws: PaddleMappingError(.invalidField, "details.totals.tax")) {
            try PaddleTransactionReading(transaction: taxAboveTotal).sale()
        }
        var otherCurrency = Self.transaction()
        otherCurrency.details?.totals?.currencyCode = "EUR"
        #expect(throws: PaddleMappingError(.invalidField, "details.totals.currency_code")) {
            try PaddleTransactionReading(transaction: otherCurrency).sale()
        }
        var noTotals = Self.transaction()
        noTotals.details = nil
        #expect(throws: PaddleMappingError(.missingField, "details.totals")) {
            try PaddleTransactionReading(transaction: noTotals).sale()
        }
        var noPeriod = Self.transaction()
        noPeriod.billingPeriod = nil
        #expect(throws: PaddleMappingError(.missingField, "billing_period")) {
            try PaddleTransactionReading(transaction: noPeriod).sale()
        }
        var noItems = Self.transaction()
        noItems.items = []
        #expect(throws: PaddleMappingError(.missingField, "items")) {
            try PaddleTransactionReading(transaction: noItems).sale()
        }
        var huge = Self.transaction(total: .max, tax: 0, fee: 0)
        huge.details?.payoutTotals = nil
        #expect(throws: PaddleMappingError(.invalidField, "details.totals.total")) {
            try PaddleTransactionReading(transaction: huge).sale()
        }
    }

    @Test func theDocumentedTransactionReadsAsASale() throws {
        let transaction = try PaddleDecoding.decode(
            PaddleTransaction.self, from: Fixtures.data("transaction_documented"))
        let adjustment = try PaddleDecoding.decode(PaddleAdjustment.self, from: Fixtures.data("adjustment_documented"))
        let sale = try #require(
            try PaddleTransactionReading(transaction: transaction, adjustments: [adjustment]).sale())
        #expect(sale.currency == "EUR" && sale.price == 35_700 && sale.tax == 5700 && sale.processingFee == 2290)
        #expect(sale.payout?.currency == "USD" && sale.payout?.earnings == 30_120)
        #expect(
            sale.partialRefunds == [
                PartialRefund(
                    date: adjustment.updatedAt ?? adjustment.createdAt, amount: 11_900, fee: 760,
                    payoutEarnings: 10_040)
            ])
    }
}
