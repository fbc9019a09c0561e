import AppStore
import AppStoreSimulator
import Foundation
import SubLedgerCore
import Testing

/// Offers Apple prices periods with, through appstore-sim and SubLedger: an offer code redeemed in the App
/// Store outside the app (`OFFER_REDEEMED`, no token: unclaimed until the customer's account submits it), and a
/// win-back offer to a lapsed subscriber. The app server hears of each with `subscription.offer_redeemed` when
/// the account gets the period; the period is priced as Apple states.
@Suite struct OfferRedemptionEndToEndTests {
    typealias E = EndToEndHarness

    @Test func anOfferCodeRedeemedOutsideTheAppAndAWinBackOfferReachTheAccount() async throws {
        try await E.run { e in
            let appleID = try e.appleID()
            let redeemed = try await e.control.purchase(
                PurchaseRequest(
                    appleID: appleID, bundleID: E.bundleID, productID: "pro.monthly",
                    offer: OfferRedemption(kind: .offerCode, identifier: "SPRING2026", price: 4_990)))
            await e.deliverNotifications()
            let notified = e.control.notifications().filter { $0.transactionID == redeemed.transactionID }
            #expect(notified.map(\.notificationType) == ["OFFER_REDEEMED"])
            #expect(notified.first?.subtype == "INITIAL_BUY")
            // No token: nobody can be given it yet.
            #expect(try await WebhookEventTests.events(e).contains { $0.type == "transaction.unclaimed" })
            #expect(!(try await WebhookEventTests.events(e).contains { $0.type == "subscription.offer_redeemed" }))

            // The customer opens the app signed in as dana: the purchase is claimed, and the offer told.
            _ = try await e.client.call(
                .post, "/v1/transactions", key: e.key,
                json: ["account_id": "dana", "signed_transaction": try #require(redeemed.signedTransaction)])
            var offers = try await WebhookEventTests.timeline(e, "dana").filter {
                $0.type == "subscription.offer_redeemed"
            }
            #expect(offers.count == 1)
            #expect(offers.first?.data["offer_type"] as? String == "offer_code")
            #expect(offers.first?.data["offer_identifier"] as? String == "SPRING2026")
            #expect(offers.first?.data["offer_discount_type"] as? String == "PAY_AS_YOU_GO")
            #expect(offers.first?.data["price_milli"] as? Int == 4_990)
            #expect(offers.first?.data["transaction_id"] as? String == redeemed.transactionID)
            let price = try await e.service.pool.query(
                """
                SELECT price_milliunits, offer_type FROM transactions WHERE transaction_id = \(redeemed.transactionID)
                """)
            #expect(try price.single().decode(Int64?.self, at: 0) == 4_990)
            #expect(try price.single().decode(Int?.self, at: 1) == 3)

            // The subscription lapses; a win-back offer brings the subscriber back on the same chain.
            let original = try #require(redeemed.originalTransactionID)
            _ = await e.control.advanceClock(.init(seconds: 5))
            _ = try await e.control.setAutoRenew(original, enabled: false)
            _ = await e.control.advanceClock(.init(seconds: 40 * 86_400))
            await e.deliverNotifications()
            // Apple says which win-back offers the lapsed customer may redeem; the app reads them here.
            let lapsed = try await e.client.call(.get, "/v1/accounts/dana/subscriptions", key: e.key)
            let subscription = try #require((lapsed.json["subscriptions"] as? [[String: Any]])?.first)
            #expect(subscription["state"] as? String == "expired")
            #expect(subscription["eligible_win_back_offer_ids"] as? [String] == ["COMEBACK"])
            await #expect(throws: SimulatorError.self) {
                _ = try await e.control.purchase(
                    PurchaseRequest(
                        appleID: appleID, bundleID: E.bundleID, productID: "pro.monthly",
                        offer: OfferRedemption(kind: .winBack, identifier: "NOSUCHOFFER")))
            }
            await #expect(throws: SimulatorError.self) {
                // Not for a subscriber whose subscription runs.
                _ = try await e.control.purchase(
                    PurchaseRequest(
                        appleID: try e.appleID(), bundleID: E.bundleID, productID: "pro.monthly",
                        offer: OfferRedemption(kind: .winBack, identifier: "COMEBACK")))
            }
            let back = try await e.control.purchase(
                PurchaseRequest(
                    appleID: appleID, bundleID: E.bundleID, productID: "pro.monthly",
                    offer: OfferRedemption(kind: .winBack, identifier: "COMEBACK", discountType: "FREE_TRIAL")))
            #expect(back.originalTransactionID == original)
            await e.deliverNotifications()
            // Redeemed in the App Store after the lapse: Apple's notification does not say which of the app's
            // accounts came back, so the purchase waits unclaimed (dana does not look active because of it) ...
            #expect(try await e.entitlements("dana").entitlementIDs.isEmpty)
            #expect(
                try await WebhookEventTests.events(e).contains {
                    $0.type == "transaction.unclaimed" && $0.data["transaction_id"] as? String == back.transactionID
                })
            // ... until the app, signed in as dana, submits it.
            let claimed = try await e.client.call(
                .post, "/v1/transactions", key: e.key,
                json: ["account_id": "dana", "signed_transaction": try #require(back.signedTransaction)])
            #expect(claimed.json.results[try #require(back.transactionID)] == "applied")
            offers = try await WebhookEventTests.timeline(e, "dana").filter { $0.type == "subscription.offer_redeemed" }
            #expect(offers.map { $0.data["offer_type"] as? String } == ["offer_code", "win_back"])
            #expect(offers.last?.data["price_milli"] as? Int == 0)
            #expect(offers.last?.data["offer_discount_type"] as? String == "FREE_TRIAL")
            #expect(try await e.entitlements("dana")["entitlements"] as? [Any] != nil)

            // Hostile offers are refused by the simulator as Apple's StoreKit would never send them.
            for offer in [
                OfferRedemption(kind: .promotional, identifier: ""),
                OfferRedemption(kind: .promotional, identifier: "X", discountType: "HALF"),
                OfferRedemption(kind: .promotional, identifier: "X", price: 1_000_000),
            ] {
                await #expect(throws: SimulatorError.self) {
                    _ = try await e.control.purchase(
                        PurchaseRequest(
                            appleID: try e.appleID(), bundleID: E.bundleID, productID: "pro.monthly", offer: offer))
                }
            }
        }
    }
}
