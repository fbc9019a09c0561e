import AppStore
import Crypto
import Foundation
import SubLedgerCore

extension SimulatorState {
    /// The Apple ID's current app receipt for an app, built (and registered) when its purchases changed.
    mutating func currentReceipt(
        _ key: AccountAppKey,
        signer: PayloadSigner,
        now: Instant
    ) throws(SimulatorError) -> CurrentReceipt {
        let version = version(key)
        if let cached = receipts.current[key], cached.version == version { return cached }
        let app = try app(key.bundleID)
        let account = try account(key.appleID)
        let purchases = transactions(of: key).filter(\.isInReceipt)
        let contents = AppReceiptContents(
            receiptType: account.environment == .production ? "Production" : "ProductionSandbox",
            appItemID: app.description.appAppleID,
            bundleID: app.bundleID,
            applicationVersion: app.description.applicationVersion,
            originalApplicationVersion: account.environment == .production ? app.description.applicationVersion : "1.0",
            creationDate: now,
            originalPurchaseDate: purchases.first?.originalPurchaseDate ?? now,
            opaqueValue: ids.bytes(16),
            purchases: purchases)
        let bytes: [UInt8]
        do {
            bytes = try PKCS7Container.signedData(content: try AppReceiptEncoder.payload(contents), chain: signer.chain)
        } catch {
            throw SimulatorError(.internalError, "receipt encoding failed")
        }
        let digest = Array(SHA256.hash(data: bytes))
        receipts.issued[digest] = IssuedReceipt(
            kind: .app, key: key, environment: account.environment, creationDate: now, purchases: purchases)
        let receipt = CurrentReceipt(version: version, base64: Data(bytes).base64EncodedString(), digest: digest)
        receipts.current[key] = receipt
        return receipt
    }

    /// An iOS 6 style transaction receipt: an old-style property list with `purchase-info` and `signature`.
    mutating func legacyReceipt(
        _ transactionID: String,
        signer: PayloadSigner,
        now: Instant
    ) throws(SimulatorError) -> String {
        if let cached = receipts.currentLegacy[transactionID] { return cached }
        let record = try transaction(transactionID)
        let app = try app(record.bundleID)
        var info: [(String, String)] = [
            ("original-purchase-date-pst", AppleDateFormat.pacific(record.originalPurchaseDate)),
            ("purchase-date-ms", String(record.purchaseDate.millisecondsSince1970)),
            ("unique-identifier", ids.uuid()),
            ("original-transaction-id", record.originalTransactionID),
            ("bvrs", app.description.applicationVersion),
            ("app-item-id", String(app.description.appAppleID)),
            ("transaction-id", record.transactionID),
            ("quantity", String(record.quantity)),
            ("original-purchase-date-ms", String(record.originalPurchaseDate.millisecondsSince1970)),
            ("product-id", record.productID),
            ("item-id", ReceiptIssuingIDs.itemID(record.productID, seed: seed)),
            ("bid", record.bundleID),
            ("purchase-date", AppleDateFormat.gmt(record.purchaseDate)),
            ("original-purchase-date", AppleDateFormat.gmt(record.originalPurchaseDate)),
        ]
        if let expires = record.expiresDate {
            info.append(("expires-date", String(expires.millisecondsSince1970)))
            info.append(("expires-date-formatted", AppleDateFormat.gmt(expires)))
        }
        if let webOrder = record.webOrderLineItemID { info.append(("web-order-line-item-id", webOrder)) }
        let purchaseInfo = Self.plist(info)
        let purchaseInfoBase64 = Data(purchaseInfo.utf8).base64EncodedString()
        let signature: String
        do {
            signature = try signer.chain.leafPrivateKey.signature(for: Data(purchaseInfo.utf8)).derRepresentation
                .base64EncodedString()
        } catch {
            throw SimulatorError(.internalError, "legacy receipt signing failed")
        }
        let outer = Self.plist([
            ("signature", signature),
            ("purchase-info", purchaseInfoBase64),
            ("environment", record.environment == .production ? "Production" : "Sandbox"),
            ("pod", "100"),
            ("signing-status", "0"),
        ])
        let bytes = Array(outer.utf8)
        let digest = Array(SHA256.hash(data: bytes))
        receipts.issued[digest] = IssuedReceipt(
            kind: .legacy(transactionID: transactionID),
            key: AccountAppKey(appleID: record.appleID, bundleID: record.bundleID),
            environment: record.environment, creationDate: now, purchases: [record])
        let base64 = Data(bytes).base64EncodedString()
        receipts.currentLegacy[transactionID] = base64
        return base64
    }

    private static func plist(_ entries: [(String, String)]) -> String {
        "{\n" + entries.map { "\t\"\($0.0)\" = \"\($0.1)\";\n" }.joined() + "}"
    }
}

/// Stable numeric ids Apple gives products in legacy receipts and V1 notifications (`item_id`, `auto_renew_adam_id`).
enum ReceiptIssuingIDs {
    static func itemID(_ productID: String, seed: UInt64) -> String {
        let bytes = SeedDerivation.bytes(seed: seed, label: "item:" + productID)
        return String(bytes.prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) } % 900_000_000 + 100_000_000)
    }
}
