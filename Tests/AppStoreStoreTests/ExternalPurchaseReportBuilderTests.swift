import AppStore
import SubLedgerCore
import SubLedgerStore
import Testing

@testable import AppStoreStore
@testable import SubLedgerUseCases

/// A recorded report in Apple's words: which line item shape each transaction takes, what it references, and the
/// amounts and countries it states.
@Suite struct ExternalPurchaseReportBuilderTests {
    static let app = App(
        bundleID: "com.example.web", appAppleID: 1,
        products: [
            Product(productID: "prod_sub", type: .autoRenewable, subscriptionGroupID: "web", store: .stripe),
            Product(productID: "prod_once", type: .nonConsumable, store: .stripe),
        ],
        externalPurchase: ExternalPurchasePolicy(report: true, taxCountry: "FRA"))

    static func item(
        _ id: String, _ event: String, product: String = "prod_sub", start: Bool = false, reference: String? = nil,
        paidDays: Int64 = 0
    ) -> StoredExternalPurchaseReport.LineItem {
        StoredExternalPurchaseReport.LineItem(
            lineItemID: id, eventType: event, referenceLineItemID: reference, isSubscriptionStart: start,
            transactionID: "in_\(id)", productID: product, occurredAt: Instant(millisecondsSince1970: 2_000),
            periodStart: Instant(millisecondsSince1970: 1_000), periodEnd: Instant(millisecondsSince1970: 9_000),
            daysOfPaidServiceBefore: paidDays, priceMilliunits: 9_990, currency: "EUR")
    }

    static func report(_ items: [StoredExternalPurchaseReport.LineItem], status: String = "LINE_ITEM")
        -> ExternalPurchaseReport
    {
        ExternalPurchaseReportBuilder.report(
            StoredExternalPurchaseReport(
                reportID: 1, requestIdentifier: "8e4a3b8e-1f0e-4c8e-9d55-0c5f1f3f7a11", externalPurchaseID: "SANDBOX_1",
                status: status, state: "pending", waitsForEarlierReport: false, lineItems: items),
            app: app)
    }

    @Test func aSubscriptionStartsThenRenewsReferencingItsStart() throws {
        let built = Self.report([
            Self.item("a", "BUY", start: true), Self.item("b", "BUY", reference: "a", paidDays: 30),
        ])
        #expect(built.status == .lineItem && built.requestIdentifier == "8e4a3b8e-1f0e-4c8e-9d55-0c5f1f3f7a11")
        let items = try #require(built.lineItems)
        #expect(items.map(\.rawSubscriptionEvent) == ["SUBSCRIPTION_START", "RENEWAL"])
        #expect(items.map(\.referenceLineItemID) == [nil, "a"])
        #expect(items.map(\.productType) == [.subscription, .subscription])
        #expect(items.map(\.subscriptionDaysOfPaidService) == [0, 30])
        #expect(
            items.map(\.subscriptionStartDate) == [1_000, 1_000] && items.map(\.subscriptionEndDate) == [9_000, 9_000])
        let first = items[0]
        #expect(first.amountTaxInclusive == 9_990 && first.amountTaxExclusive == 9_990 && first.taxAmount == 0)
        #expect(first.netAmountTaxExclusive == 9_990 && first.quantity == 1 && first.productIdentifier == "prod_sub")
        #expect(first.reportingCurrency == "EUR" && first.pricingCurrency == "EUR" && first.taxCountry == "FRA")
        // When the transaction happened, as recorded (a purchase: its period's start; a refund: its revocation).
        #expect(first.creationDate == 2_000)
    }

    @Test func aOneTimePurchaseHasNoSubscriptionFieldsAndARefundGivesItBack() throws {
        let items = try #require(
            Self.report([
                Self.item("c", "BUY", product: "prod_once", start: true), Self.item("d", "REFUND", reference: "c"),
            ])
            .lineItems)
        #expect(items.map(\.productType) == [.oneTimeBuy, nil])
        #expect(items.map(\.eventType) == [.buy, .refund])
        #expect(items[0].rawSubscriptionEvent == nil && items[0].subscriptionStartDate == nil)
        let refund = items[1]
        #expect(refund.referenceLineItemID == "c" && refund.creationDate == 2_000)
        #expect(refund.amountTaxInclusive == 9_990 && refund.netAmountTaxExclusive == 0)
        #expect(refund.productIdentifier == nil && refund.quantity == nil)
    }

    @Test func aReportWithoutLineItemsCarriesNone() {
        let built = Self.report([], status: "UNRECOGNIZED_TOKEN")
        #expect(built.status == .unrecognizedToken && built.lineItems == nil)
    }

    /// The tax Stripe stated is in the amount paid: the tax-exclusive amounts are the price less it, and never
    /// below 0 whatever the stored tax says.
    @Test func theTaxStripeStatedIsReportedOutOfTheAmountPaid() throws {
        var taxed = Self.item("a", "BUY", start: true)
        taxed.taxMilliunits = 1_595
        let buy = ExternalPurchaseReportBuilder.lineItem(taxed, app: Self.app)
        #expect(buy.amountTaxInclusive == 9_990)
        #expect(buy.taxAmount == 1_595)
        #expect(buy.amountTaxExclusive == 8_395)
        #expect(buy.netAmountTaxExclusive == 8_395)
        var refund = Self.item("b", "REFUND", reference: "a")
        refund.taxMilliunits = 1_595
        let refunded = ExternalPurchaseReportBuilder.lineItem(refund, app: Self.app)
        #expect(refunded.taxAmount == 1_595 && refunded.amountTaxExclusive == 8_395)
        #expect(refunded.netAmountTaxExclusive == 0)
        var wrong = Self.item("c", "BUY")
        wrong.taxMilliunits = 20_000
        let capped = ExternalPurchaseReportBuilder.lineItem(wrong, app: Self.app)
        #expect((capped.amountTaxExclusive ?? 0) + (capped.taxAmount ?? 0) == capped.amountTaxInclusive)
        #expect((capped.amountTaxExclusive ?? -1) >= 0)
    }
}
