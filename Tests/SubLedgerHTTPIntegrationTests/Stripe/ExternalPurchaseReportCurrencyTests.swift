import AppStore
import Foundation
import NIOCore
import SubLedgerCore
import SubLedgerStore
import Testing

/// A web sale in a currency Apple does not accept as a `reportingCurrency` (the Kuwaiti dinar, three decimals) is
/// reported converted into USD at the exchange rate loaded for its day, the rate stated as `exchangeRate`; with no
/// rate near enough the report waits, and is sent once one is loaded.
@Suite struct ExternalPurchaseReportCurrencyTests {
    @Test func aSaleInKuwaitiDinarsIsReportedInDollarsWithItsExchangeRate() async throws {
        try await ExternalPurchaseReportingTests.run { c in
            // 3.990 KWD: 3990 fils, Stripe's minor unit, which is the milli-unit Apple's amounts count in.
            let price = try await c.stripe.control.createPrice(
                product: StripeHarness.product, unitAmount: 3_990, currency: "kwd")
            let token = try c.issueToken()
            let json: [String: Any] = [
                "account_id": "alice", "product_id": StripeHarness.product, "price": price,
                "success_url": "https://example.com/paid", "external_purchase_token": token.token,
            ]
            let started = try await c.h.client.call(
                .post, "/v1/checkout/stripe", key: c.h.key,
                raw: ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: json)))
            #expect(started.status.code == 201, "\(started.json)")
            let session = try #require(started.json["checkout_session_id"] as? String)
            _ = try await c.stripe.control.completeCheckout(session)
            #expect(try await c.h.entitlements("alice") == ["pro"])

            // No rate of KWD is loaded: the report is not sent in a currency Apple refuses, and waits.
            let waiting = try await c.sender.runCycle()
            #expect(waiting.sent == 0 && waiting.retrying == 1 && waiting.failed == 0)
            #expect(c.accepted.isEmpty)

            // A rate dated the day before the sale (within Apple's 48 hours), and one into EUR as well: USD is used.
            let day = ExternalPurchaseReportingTests.start.millisecondsSince1970 / 86_400_000
            let rates = RevenueSettingsStore(pool: c.h.pool)
            try await rates.applyExchangeRates(
                [.init(day: day - 1, currency: "KWD", rateText: "3.2545")], reportingCurrency: "USD")
            try await rates.applyExchangeRates(
                [.init(day: day, currency: "KWD", rateText: "2.79")], reportingCurrency: "EUR")
            await c.stripe.control.advance(seconds: 3_600)
            #expect(try await c.sender.runCycle().sent == 1)
            let accepted = try #require(c.accepted.first)
            #expect(accepted.externalPurchaseID == token.externalPurchaseID)
            let item = try #require(c.retrieved(accepted.requestIdentifier)?.lineItems?.first)
            #expect(item.pricingCurrency == "KWD" && item.reportingCurrency == "USD")
            #expect(item.exchangeRate == 3.2545)
            // 3990 × 3.2545 = 12985.455 milli-dollars: 12.985 USD.
            #expect(item.amountTaxInclusive == 12_985 && item.amountTaxExclusive == 12_985 && item.taxAmount == 0)
            #expect(item.netAmountTaxExclusive == 12_985)
        }
    }
}
