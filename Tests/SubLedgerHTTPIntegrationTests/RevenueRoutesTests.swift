import AppStore
import Foundation
import HummingbirdTesting
import SubLedgerCore
import SubLedgerHTTP
import SubLedgerUseCases
import Testing

/// Prices from signed transactions through the real ingestion path, out through `/v1/admin/reports/revenue`
/// and `mrr`; bad arguments are 400s; a hostile price never refuses the purchase.
@Suite struct RevenueRoutesTests {
    typealias H = ServiceHarness

    func signed(
        _ harness: H, id: String, from: Int, to: Int, price: Int64, currency: String, storefront: String
    ) throws -> String {
        try harness.signer.sign(
            JWSTransactionDecodedPayload(
                originalTransactionID: id, transactionID: id, webOrderLineItemID: "w\(id)", bundleID: H.appOne,
                productID: "pro.monthly", subscriptionGroupIdentifier: "g1",
                purchaseDate: H.day(from).millisecondsSince1970,
                originalPurchaseDate: H.day(from).millisecondsSince1970,
                expiresDate: H.day(to).millisecondsSince1970, quantity: 1, rawType: "Auto-Renewable Subscription",
                rawInAppOwnershipType: "PURCHASED", signedDate: H.day(from).millisecondsSince1970,
                rawEnvironment: "Production", storefront: storefront, currency: currency, price: price))
    }

    @Test func signedPricesReachTheRevenueAndMRRReports() async throws {
        try await H.run { harness, client in
            let admin = try await harness.keys.create(bundleID: nil, name: "ops").secret
            harness.clock.set(H.day(10))
            for (id, account, price, currency) in [
                ("8001", "erin", Int64(9_990), "USD"), ("8002", "finn", Int64(-5), "usd"),
            ] {
                let response = try await client.call(
                    .post, "/v1/transactions", key: harness.keyOne,
                    json: [
                        "account_id": account,
                        "signed_transaction": try signed(
                            harness, id: id, from: 2, to: 32, price: price, currency: currency, storefront: "USA"),
                    ])
                #expect(response.status == .ok, "a hostile price (\(id)) must not refuse the purchase")
            }
            try await harness.projectReports()
            let revenue = try await client.call(
                .get, "/v1/admin/reports/revenue?from=2025-01-01&to=2025-02-01&by=month&app=\(H.appOne)", key: admin)
            #expect(revenue.status == .ok)
            let totals = revenue.json["totals"] as? [[String: Any]] ?? []
            #expect(totals.count == 1)
            let amounts = totals.first?["amounts"] as? [String: Any] ?? [:]
            #expect(amounts["gross_milli"] as? Int == 9_990)
            #expect(amounts["proceeds_milli"] as? Int == 6_993)
            #expect(revenue.json["unpriced_sales"] as? Int == 1)

            let mrr = try await client.call(.get, "/v1/admin/reports/mrr?from=2025-01-01&to=2025-02-01", key: admin)
            #expect(mrr.status == .ok)
            let rows = mrr.json["rows"] as? [[String: Any]] ?? []
            #expect(rows.first?["mrr_milli"] as? Int == 9_990)
            #expect(rows.first?["month"] as? String == "2025-01")

            for query in ["revenue?by=year", "revenue?currency=usd", "mrr?by=day", "mrr?currency=%3Cb%3E"] {
                let bad = try await client.call(.get, "/v1/admin/reports/\(query)", key: admin)
                #expect(bad.status == .badRequest, "\(query)")
                #expect(bad.json.errorCode == "invalid_argument", "\(query)")
            }
        }
    }
}
