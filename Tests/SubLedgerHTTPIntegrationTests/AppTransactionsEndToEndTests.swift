import AppStore
import AppStoreSimulator
import Foundation
import SubLedgerCore
import Testing

/// The app's `AppTransaction` as appstore-sim signs it for a device, claimed through `POST /v1/app-transactions`
/// and verified with the simulator's root like any signed data; the same `appTransactionId` that every
/// transaction of that Apple ID carries finds the owner and the purchases.
@Suite struct AppTransactionsEndToEndTests {
    typealias E = EndToEndHarness

    @Test func theDevicesAppTransactionIsClaimedAndFindsThePurchases() async throws {
        try await E.run { e in
            let admin = try await e.service.keys.create(bundleID: nil, name: "ops").secret
            let appleID = try e.appleID()
            let bought = try await e.control.purchase(
                PurchaseRequest(appleID: appleID, bundleID: E.bundleID, productID: "pro.monthly"))
            _ = try await e.client.call(
                .post, "/v1/transactions", key: e.key,
                json: ["account_id": "erin", "signed_transaction": try #require(bought.signedTransaction)])

            let device = try e.control.appTransaction(appleID: appleID, bundleID: E.bundleID)
            let claimed = try await e.client.call(
                .post, "/v1/app-transactions", key: e.key,
                json: ["account_id": "erin", "signed_app_transaction": device.signedAppTransaction])
            #expect(claimed.status == .ok)
            #expect(claimed.json["app_transaction_id"] as? String == device.appTransactionID)
            #expect(claimed.json["claimed"] as? Bool == true)
            #expect(claimed.json["original_purchase_date"] is String)

            // Every transaction of that Apple ID in the app carries the same id.
            let stored = try await e.service.pool.query(
                "SELECT app_transaction_id FROM transactions WHERE transaction_id = \(bought.transactionID)")
            #expect(try stored.single().decode(String?.self, at: 0) == device.appTransactionID)

            let lookup = try await e.client.call(
                .get, "/v1/admin/lookup/app-transaction/\(device.appTransactionID)?bundle_id=\(E.bundleID)", key: admin)
            #expect(lookup.status == .ok)
            #expect(lookup.json["account_id"] as? String == "erin")
            let chains = try #require(lookup.json["chains"] as? [[String: Any]])
            #expect(chains.map { $0["original_transaction_id"] as? String } == [bought.originalTransactionID])

            // A token the simulator did not sign is refused.
            let parts = device.signedAppTransaction.split(separator: ".")
            let forged = parts[0] + "." + parts[1] + ".AAAA"
            let refused = try await e.client.call(
                .post, "/v1/app-transactions", key: e.key,
                json: ["account_id": "erin", "signed_app_transaction": String(forged)])
            #expect(refused.status == .unprocessableContent)
        }
    }
}
