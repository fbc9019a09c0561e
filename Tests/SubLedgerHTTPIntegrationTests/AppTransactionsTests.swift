import AppStore
import Foundation
import HTTPTypes
import HummingbirdTesting
import SubLedgerCore
import Testing

/// `POST /v1/app-transactions` over HTTP and PostgreSQL: a StoreKit 2 `AppTransaction` verified like any signed
/// data names the account that owns the purchase of the app (the latest to claim it); support finds it, and the
/// in-app purchases carrying the same `appTransactionId`, by that id. Hostile bodies are 4xx.
@Suite struct AppTransactionsTests {
    typealias H = ServiceHarness
    static let appTransactionID = "704289572311559872"

    static func signedAppTransaction(
        _ harness: H, id: String = appTransactionID, bundleID: String = H.appOne, receiptType: String? = "Production",
        preorderedOnDay: Int? = nil
    ) throws -> String {
        try harness.signer.sign(
            AppTransaction(
                rawReceiptType: receiptType, appAppleID: H.appleAppIDOne, bundleID: bundleID, applicationVersion: "3",
                receiptCreationDate: H.day(5).millisecondsSince1970,
                originalPurchaseDate: H.day(1).millisecondsSince1970, originalApplicationVersion: "1",
                deviceVerification: "AAAA", deviceVerificationNonce: "6b2a5c1e-1d3f-4b8a-9c2e-0a1b2c3d4e5f",
                preorderDate: preorderedOnDay.map { H.day($0).millisecondsSince1970 }, appTransactionID: id,
                rawOriginalPlatform: "iOS", signedDate: H.day(5).millisecondsSince1970))
    }

    static func claim(_ client: some TestClientProtocol, _ harness: H, account: String, _ token: String) async throws
        -> (status: HTTPResponse.Status, json: [String: Any], headers: HTTPFields)
    {
        try await client.call(
            .post, "/v1/app-transactions", key: harness.keyOne,
            json: ["account_id": account, "signed_app_transaction": token])
    }

    @Test func theLatestAccountToClaimAnAppPurchaseOwnsItAndSupportFindsIt() async throws {
        try await H.run { harness, client in
            let admin = try await harness.keys.create(bundleID: nil, name: "ops").secret
            harness.clock.set(H.day(6))
            let token = try Self.signedAppTransaction(harness, preorderedOnDay: 0)

            let first = try await Self.claim(client, harness, account: "erin", token)
            #expect(first.status == .ok)
            #expect(first.json["app_transaction_id"] as? String == Self.appTransactionID)
            #expect(first.json["environment"] as? String == "Production")
            #expect(first.json["account_id"] as? String == "erin")
            #expect(first.json["claimed"] as? Bool == true)
            #expect(first.json["previous_account_id"] == nil)
            #expect(first.json["original_purchase_date"] as? String == "2025-01-02T00:00:00.000Z")
            #expect(first.json["preorder_date"] as? String == "2025-01-01T00:00:00.000Z")

            // The owner again: nothing written.
            let again = try await Self.claim(client, harness, account: "erin", token)
            #expect(again.json["claimed"] as? Bool == false)
            #expect(again.json["account_id"] as? String == "erin")

            // Another account claims it: it is the owner now, and the answer names the one before.
            harness.clock.set(H.day(7))
            let moved = try await Self.claim(client, harness, account: "finn", token)
            #expect(moved.json["claimed"] as? Bool == true)
            #expect(moved.json["previous_account_id"] as? String == "erin")
            let rows = try await harness.pool.query(
                "SELECT account_id, sequence FROM app_transaction_claims ORDER BY sequence")
            #expect(try rows.map { try $0.decode(String.self, at: 0) } == ["erin", "finn"])

            // An in-app purchase of the same customer carries the app transaction id.
            var payload = JWSTransactionDecodedPayload(
                originalTransactionID: "9100", transactionID: "9100", bundleID: H.appOne, productID: "pro.monthly",
                subscriptionGroupIdentifier: "g1", purchaseDate: H.day(2).millisecondsSince1970,
                originalPurchaseDate: H.day(2).millisecondsSince1970, expiresDate: H.day(32).millisecondsSince1970,
                quantity: 1, rawType: "Auto-Renewable Subscription", rawInAppOwnershipType: "PURCHASED",
                signedDate: H.day(2).millisecondsSince1970, rawEnvironment: "Production")
            payload.appTransactionID = Self.appTransactionID
            let bought = try await client.call(
                .post, "/v1/transactions", key: harness.keyOne,
                json: ["account_id": "finn", "signed_transaction": try harness.signer.sign(payload)])
            #expect(bought.status == .ok)

            let lookup = try await client.call(
                .get, "/v1/admin/lookup/app-transaction/\(Self.appTransactionID)?bundle_id=\(H.appOne)", key: admin)
            #expect(lookup.status == .ok)
            #expect(lookup.json["kind"] as? String == "app_transaction")
            #expect(lookup.json["account_id"] as? String == "finn")
            let purchases = try #require(lookup.json["app_purchases"] as? [[String: Any]])
            #expect(purchases.count == 1)
            #expect(purchases.first?["owner_account_id"] as? String == "finn")
            let claims = purchases.first?["claims"] as? [[String: Any]] ?? []
            #expect(claims.map { $0["account_id"] as? String } == ["erin", "finn"])
            let chains = try #require(lookup.json["chains"] as? [[String: Any]])
            #expect(chains.map { $0["original_transaction_id"] as? String } == ["9100"])

            let unknown = try await client.call(
                .get, "/v1/admin/lookup/app-transaction/1234?bundle_id=\(H.appOne)", key: admin)
            #expect(unknown.status == .notFound)
            #expect(unknown.json.errorCode == "app_transaction_not_found")
            let invalid = try await client.call(
                .get, "/v1/admin/lookup/app-transaction/%3Cb%3E?bundle_id=\(H.appOne)", key: admin)
            #expect(invalid.status == .badRequest)
            #expect(invalid.json.errorCode == "invalid_app_transaction_id")
        }
    }

    @Test func hostileAppTransactionsAreRefusedAndNothingIsRecorded() async throws {
        try await H.run { harness, client in
            harness.clock.set(H.day(6))
            let cases: [(String, HTTPResponse.Status, String)] = [
                ("not a jws", .badRequest, "malformed_jws"),
                ("a.b", .badRequest, "malformed_jws"),
                (try Self.signedAppTransaction(harness, receiptType: nil), .badRequest, "malformed_jws"),
                (
                    try Self.signedAppTransaction(harness, bundleID: "com.example.other"), .unprocessableContent,
                    "invalid_app_transaction"
                ),
                (try Self.signedAppTransaction(harness, id: "<b>"), .unprocessableContent, "invalid_app_transaction"),
                // Signed by a key no Apple root vouches for: the payload of a real one, another signature.
                (
                    try Self.signedAppTransaction(harness).split(separator: ".").prefix(2).joined(separator: ".")
                        + ".AAAA", .unprocessableContent, "invalid_app_transaction"
                ),
            ]
            for (token, status, code) in cases {
                let answer = try await Self.claim(client, harness, account: "erin", token)
                #expect(answer.status == status, "\(code)")
                #expect(answer.json.errorCode == code)
            }
            let bad = try await Self.claim(
                client, harness, account: "not valid!", try Self.signedAppTransaction(harness))
            #expect(bad.status == .badRequest)
            let rows = try await harness.pool.query("SELECT count(*) FROM app_transaction_claims")
            #expect(try rows.single().decode(Int64.self, at: 0) == 0)
        }
    }
}
