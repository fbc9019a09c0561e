import AppStore
import Foundation
import SubLedgerCore

/// Writes `COUNT` distinct signed V2 `DID_RENEW` notifications, one JSON body per line, for chains 0..<COUNT
/// as `load` stored them, and the DER root certificate that signs them (`subledger serve --apple-root`);
/// with `purchases` > 0 also that many signed purchases of new chains (`BenchPurchases`), by the same signer.
enum BenchNotifications {
    static func write(count: Int, to directory: String, renewals: Int = 2, purchases: Int = 0) throws {
        let now = Instant.systemNow()
        let chain = try SigningChain.generate(
            notValidBefore: now.adding(milliseconds: -400 * BenchShape.day),
            notValidAfter: now.adding(milliseconds: 400 * BenchShape.day))
        let signer = JWSSigner(chain: chain)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try Data(try SigningChain.der(chain.root)).write(to: URL(fileURLWithPath: directory + "/root.der"))

        var bodies = Data()
        let encoder = JSONEncoder()
        for index in 0..<count {
            // The next period of chain `index`: a renewal the ledger has not seen.
            let original = BenchShape.chainID(index)
            let period = renewals + 1
            let start = BenchShape.purchase(index, renewals: renewals, now: now)
                .adding(milliseconds: Int64(period) * BenchShape.period)
            let transactionID = BenchShape.transactionID(index, period: period)
            let transaction = try signer.sign(
                JWSTransactionDecodedPayload(
                    originalTransactionID: original, transactionID: transactionID,
                    webOrderLineItemID: "w\(transactionID)", bundleID: BenchShape.bundleID,
                    productID: BenchShape.productID, subscriptionGroupIdentifier: BenchShape.groupID,
                    purchaseDate: start.millisecondsSince1970,
                    originalPurchaseDate: BenchShape.purchase(index, renewals: renewals, now: now)
                        .millisecondsSince1970,
                    expiresDate: start.adding(milliseconds: BenchShape.period).millisecondsSince1970, quantity: 1,
                    rawType: "Auto-Renewable Subscription", appAccountToken: nil, rawInAppOwnershipType: "PURCHASED",
                    signedDate: now.millisecondsSince1970, rawRevocationReason: nil, revocationDate: nil,
                    rawEnvironment: "Production"))
            let renewal = try signer.sign(
                JWSRenewalInfoDecodedPayload(
                    originalTransactionID: original, autoRenewProductID: BenchShape.productID,
                    productID: BenchShape.productID, rawAutoRenewStatus: 1, isInBillingRetryPeriod: false,
                    signedDate: now.millisecondsSince1970, rawEnvironment: "Production"))
            let payload = ResponseBodyV2DecodedPayload(
                rawNotificationType: "DID_RENEW", rawSubtype: nil, notificationUUID: UUID().uuidString.lowercased(),
                data: NotificationData(
                    rawEnvironment: "Production", appAppleID: BenchShape.appAppleID, bundleID: BenchShape.bundleID,
                    bundleVersion: "1", signedTransactionInfo: transaction, signedRenewalInfo: renewal, rawStatus: 1),
                version: "2.0", signedDate: now.millisecondsSince1970)
            bodies.append(try encoder.encode(["signedPayload": try signer.sign(payload)]))
            bodies.append(UInt8(ascii: "\n"))
        }
        try bodies.write(to: URL(fileURLWithPath: directory + "/notifications.jsonl"))
        if purchases > 0 {
            try BenchPurchases.write(count: purchases, signer: signer, now: now, to: directory)
        }
        print("wrote \(count) notifications (\(bodies.count / max(count, 1)) bytes each) to \(directory)")
    }
}
