import Foundation
import GooglePlaySimulator
import PostgresLibPQ
import SubLedgerCore
import SubLedgerReports
import SubLedgerStore
import SubLedgerUseCases
import Testing

/// One account subscribed in both stores to the same entitlement: one entitlement in the answer (the one that
/// lasts longer, naming its store), webhook events naming the store of the product they are about, and both sales
/// in the revenue report.
@Suite struct GooglePlayBesideAppStoreTests {
    typealias E2E = GooglePlayPurchaseEndToEndTests

    @Test func anAccountSubscribedInBothStoresHoldsOneEntitlementNamingTheStoreThatGrantsIt() async throws {
        try await E2E.run { h in
            let app = try #require(await h.catalog.app(bundleID: E2E.bundleID))
            // The App Store subscription, as a verified StoreKit 2 transaction would be applied: bought a week
            // before play-sim's clock, for a month.
            let now = h.now
            let day: Int64 = 86_400_000
            let apple = Transaction(
                transactionID: "2000000000000001", chainID: "2000000000000001",
                productID: "pro.monthly", bundleID: E2E.bundleID, purchaseDate: now.adding(milliseconds: -7 * day),
                originalPurchaseDate: now.adding(milliseconds: -7 * day),
                expiresDate: now.adding(milliseconds: 23 * day),
                environment: .production, source: .signedTransaction, price: 9_990, currency: "USD", storefront: "USA")
            _ = try await LedgerStore(pool: h.pool).apply(
                LedgerInput(
                    kind: .signedTransaction, bundleID: E2E.bundleID, environment: .production,
                    submitter: AccountID("alice"), transactions: [apple], observedAt: now),
                app: app, now: now)
            let appleOnly = try await h.client.call(.get, "/v1/accounts/alice/entitlements", key: h.key)
            let appleEntitlement = try #require((appleOnly.json["entitlements"] as? [[String: Any]])?.first)
            #expect(appleEntitlement["product_id"] as? String == "pro.monthly")
            #expect(appleEntitlement["store"] == nil)

            // The Google Play subscription, bought now for a month: it lasts longer, so it is the one answered.
            let bought = try await h.buy("pro", account: "alice")
            #expect(try await h.submit("alice", bought).status == .ok)
            let both = try await h.client.call(.get, "/v1/accounts/alice/entitlements", key: h.key)
            let entitlements = try #require(both.json["entitlements"] as? [[String: Any]])
            #expect(entitlements.count == 1)
            #expect(entitlements.first?["entitlement_id"] as? String == "pro")
            #expect(entitlements.first?["product_id"] as? String == "pro")
            #expect(entitlements.first?["store"] as? String == "google_play")
            #expect(entitlements.first?["original_transaction_id"] as? String == bought.orderId)

            // The webhook events: the Google grant names its store; the Apple grant does not (the default).
            let events = try await h.pool.query(
                "SELECT event_type, body FROM webhook_events WHERE account_id = 'alice' ORDER BY account_sequence"
            ).map { (try $0.decode(String.self, at: 0), try $0.decode(String.self, at: 1)) }
            #expect(events.map(\.0) == ["entitlement.granted", "entitlement.granted"])
            #expect(!events[0].1.contains("\"store\""))
            #expect(events[1].1.contains("\"store\":\"google_play\""))

            // The revenue report counts both sales.
            let admin = try await APIKeys(store: APIKeyStore(pool: h.pool)).create(bundleID: nil, name: "ops").secret
            _ = try await ReportProjector(pool: h.pool).projectAll()
            let revenue = try await h.client.call(
                .get, "/v1/admin/reports/revenue?from=2024-12-01&to=2025-02-01&by=month", key: admin)
            #expect(revenue.status == .ok)
            let totals = revenue.json["totals"] as? [[String: Any]] ?? []
            let amounts = totals.first?["amounts"] as? [String: Any] ?? [:]
            #expect(amounts["gross_milli"] as? Int == 2 * 9_990)
            #expect(amounts["sales"] as? Int == 2)
            // Google Play's service fee on a subscription is 15 % from the first sale; Apple's commission 30 % in
            // the first year.
            let rows = revenue.json["rows"] as? [[String: Any]] ?? []
            func commission(_ product: String) -> Int? {
                (rows.first { $0["product_id"] as? String == product }?["amounts"] as? [String: Any])?[
                    "commission_milli"] as? Int
            }
            let reduced = Proceeds.of(price: 9_990, taxPPM: 0, commissionPPM: Commission.reducedPPM).commission
            let standard = Proceeds.of(price: 9_990, taxPPM: 0, commissionPPM: Commission.standardPPM).commission
            #expect(commission("pro").map(Int64.init) == reduced)
            #expect(commission("pro.monthly").map(Int64.init) == standard)
        }
    }
}
