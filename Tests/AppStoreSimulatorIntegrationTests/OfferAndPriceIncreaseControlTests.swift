import AppStore
import AppStoreSimulator
import Foundation
import SubLedgerCore
import Testing

/// Offers and price increases through the control API's JSON (snake_case over HTTP) and out through Apple's
/// payload shapes: `offerType`, `offerIdentifier`, `offerDiscountType` and the offer's price on the transaction;
/// `priceIncreaseStatus` and `renewalPrice` on the renewal info.
@Suite struct OfferAndPriceIncreaseControlTests {
    @Test func anOfferCodePurchaseAndAPriceIncreaseReadAsApplesPayloads() async throws {
        try await SimulatorFixture.with { fixture in
            _ = try await fixture.createAppleID("offers@example.com")
            let bought = try await fixture.purchase(
                PurchaseRequest(
                    appleID: "offers@example.com", bundleID: SimulatorFixture.bundleID, productID: "pro.monthly",
                    offer: OfferRedemption(
                        kind: .offerCode, identifier: "SPRING", discountType: "PAY_UP_FRONT", price: 1_990)))
            let transaction = try AppleFidelityTests.payload(bought.signedTransaction)
            #expect(transaction["offerType"] as? Int == 3)
            #expect(transaction["offerIdentifier"] as? String == "SPRING")
            #expect(transaction["offerDiscountType"] as? String == "PAY_UP_FRONT")
            #expect(transaction["price"] as? Int == 1_990)
            #expect(transaction["offerPeriod"] as? String == "P1M")

            let original = try #require(bought.originalTransactionID)
            let announced = try await fixture.action(
                "/control/subscriptions/\(original)/price-increase",
                body: PriceIncreaseRequest(price: 12_990, requiresConsent: false))
            let renewal = try AppleFidelityTests.payload(announced.signedRenewalInfo)
            #expect(renewal["priceIncreaseStatus"] as? Int == 1)
            #expect(renewal["renewalPrice"] as? Int == 12_990)
            let types = fixture.simulator.control.notifications().map { ($0.notificationType, $0.subtype) }
            #expect(types.contains { $0 == ("OFFER_REDEEMED", "INITIAL_BUY") })
            #expect(types.contains { $0 == ("PRICE_INCREASE", "ACCEPTED") })

            // A second announcement while one stands, and an offer with a bad discount type, are refused.
            await #expect(throws: (any Error).self) {
                _ = try await fixture.action(
                    "/control/subscriptions/\(original)/price-increase", body: PriceIncreaseRequest(price: 14_990))
            }
            await #expect(throws: (any Error).self) {
                _ = try await fixture.purchase(
                    PurchaseRequest(
                        appleID: "offers@example.com", bundleID: SimulatorFixture.bundleID, productID: "coins",
                        offer: OfferRedemption(kind: .promotional, identifier: "X", discountType: "HALF")))
            }
        }
    }
}
