import AppStore
import AppStoreSimulator
import Foundation
import SubLedgerCore
import Testing

/// Apple's price increases through appstore-sim and SubLedger: the announcement pending consent, the consent,
/// the renewal at the new price; and an increase never consented to ending the subscription at its renewal
/// date. The app server is told by `subscription.price_increase`, and the subscriptions API shows where the
/// increase stands.
@Suite struct PriceIncreaseEndToEndTests {
    typealias E = EndToEndHarness

    static func subscription(_ e: E, _ account: String) async throws -> [String: Any] {
        let answer = try await e.client.call(.get, "/v1/accounts/\(account)/subscriptions", key: e.key)
        return try #require((answer.json["subscriptions"] as? [[String: Any]])?.first)
    }

    @Test func aConsentedIncreaseRenewsAtTheNewPriceAndAnIgnoredOneEndsTheSubscription() async throws {
        try await E.run { e in
            let bought = try await e.control.purchase(
                PurchaseRequest(appleID: try e.appleID(), bundleID: E.bundleID, productID: "pro.monthly"))
            let original = try #require(bought.originalTransactionID)
            _ = try await e.submitReceipt(bought.receiptData, account: "alice")
            _ = try await e.client.call(
                .post, "/v1/transactions", key: e.key,
                json: ["account_id": "alice", "signed_transaction": try #require(bought.signedTransaction)])
            await e.deliverNotifications()

            _ = await e.control.advanceClock(.init(seconds: 5))
            _ = try await e.control.increasePrice(original, PriceIncreaseRequest(price: 12_990))
            await e.deliverNotifications()
            var events = try await WebhookEventTests.timeline(e, "alice").filter {
                $0.type == "subscription.price_increase"
            }
            #expect(events.map { $0.data["status"] as? String } == ["pending"])
            #expect(events.first?.data["renewal_price_milli"] as? Int == 12_990)
            #expect(events.first?.data["currency"] as? String == "USD")
            #expect(try await Self.subscription(e, "alice")["price_increase"] as? String == "pending")
            #expect(try await Self.subscription(e, "alice")["renewal_price"] as? String == "12.990")

            _ = await e.control.advanceClock(.init(seconds: 5))
            _ = try await e.control.consentToPriceIncrease(original)
            await e.deliverNotifications()
            events = try await WebhookEventTests.timeline(e, "alice").filter {
                $0.type == "subscription.price_increase"
            }
            #expect(events.map { $0.data["status"] as? String } == ["pending", "accepted"])
            #expect(try await Self.subscription(e, "alice")["price_increase"] as? String == "accepted")

            // The renewal charges the new price, and the increase is no longer announced.
            _ = await e.control.advanceClock(.init(seconds: 31 * 86_400))
            await e.deliverNotifications()
            let renewed = try await e.service.pool.query(
                """
                SELECT price_milliunits FROM transactions WHERE original_transaction_id = \(original)
                ORDER BY purchase_date
                """)
            #expect(try renewed.map { try $0.decode(Int64?.self, at: 0) } == [9_990, 12_990])
            let after = try await Self.subscription(e, "alice")
            #expect(after["state"] as? String == "active")
            #expect(after["price_increase"] == nil)
            #expect(after["renewal_price"] as? String == "12.990")

            // Another increase, never consented to: the subscription ends at its renewal date.
            _ = try await e.control.increasePrice(original, PriceIncreaseRequest(price: 14_990))
            await e.deliverNotifications()
            _ = await e.control.advanceClock(.init(seconds: 31 * 86_400))
            await e.deliverNotifications()
            let ended = try await Self.subscription(e, "alice")
            #expect(ended["state"] as? String == "expired")
            #expect(ended["expiration_reason"] as? String == "price_increase_declined")
            #expect(ended["will_auto_renew"] as? Bool == false)
            events = try await WebhookEventTests.timeline(e, "alice").filter {
                $0.type == "subscription.price_increase"
            }
            #expect(events.map { $0.data["status"] as? String } == ["pending", "accepted", "pending"])

            // Refused where Apple would: no increase to consent to, a price out of range.
            await #expect(throws: SimulatorError.self) { _ = try await e.control.consentToPriceIncrease(original) }
        }
    }
}
