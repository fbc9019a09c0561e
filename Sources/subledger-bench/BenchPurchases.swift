import AppStore
import Foundation
import SubLedgerCore

/// Writes `COUNT` signed StoreKit 2 purchases of new subscription chains, one `POST /v1/transactions` body per
/// line (`purchases.jsonl`), signed by the same chain as the notifications so one `--apple-root` verifies both.
///
/// Chain `index` is bought by account `ha-acct-<index>`; its transaction and original transaction ids lie
/// outside the range `load` and the notifications use, so every body is a write the ledger has not seen.
enum BenchPurchases {
    static func chainID(_ index: Int) -> String { String(3_000_000_000_000 + index) }

    static func write(count: Int, signer: JWSSigner, now: Instant, to directory: String) throws {
        var bodies = Data()
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        for index in 0..<count {
            let transactionID = chainID(index)
            let start = now.adding(milliseconds: -BenchShape.day)
            let transaction = try signer.sign(
                JWSTransactionDecodedPayload(
                    originalTransactionID: transactionID, transactionID: transactionID,
                    webOrderLineItemID: "w\(transactionID)", bundleID: BenchShape.bundleID,
                    productID: BenchShape.productID, subscriptionGroupIdentifier: BenchShape.groupID,
                    purchaseDate: start.millisecondsSince1970, originalPurchaseDate: start.millisecondsSince1970,
                    expiresDate: start.adding(milliseconds: BenchShape.period).millisecondsSince1970, quantity: 1,
                    rawType: "Auto-Renewable Subscription", appAccountToken: nil, rawInAppOwnershipType: "PURCHASED",
                    signedDate: now.millisecondsSince1970, rawRevocationReason: nil, revocationDate: nil,
                    rawEnvironment: "Production"))
            bodies.append(try encoder.encode(["account_id": "ha-acct-\(index)", "signed_transaction": transaction]))
            bodies.append(UInt8(ascii: "\n"))
        }
        try bodies.write(to: URL(fileURLWithPath: directory + "/purchases.jsonl"))
        print("wrote \(count) purchases to \(directory)")
    }
}
