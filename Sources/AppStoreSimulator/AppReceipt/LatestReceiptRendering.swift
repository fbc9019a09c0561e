import AppStore
import SubLedgerCore

extension SimulatorState {
    /// `"latest_receipt_info":[...],"pending_renewal_info":[...],"latest_receipt":"..."` for an Apple ID
    /// and app, rendered once per state version (the verifyReceipt hot path reuses it).
    mutating func latestReceiptFragment(
        _ key: AccountAppKey,
        excludeOldTransactions: Bool,
        signer: PayloadSigner,
        now: Instant
    ) throws(SimulatorError) -> String {
        let cacheKey = ReceiptBook.LatestKey(key: key, excludeOldTransactions: excludeOldTransactions)
        let version = version(key)
        if let cached = receipts.renderedLatest[cacheKey], cached.version == version { return cached.json }
        let receipt = try currentReceipt(key, signer: signer, now: now)
        var entries = transactions(of: key).filter(\.isInReceipt)
        let chainsOfKey = chains.values
            .filter { $0.appleID == key.appleID && $0.bundleID == key.bundleID }
            .sorted { $0.originalTransactionID < $1.originalTransactionID }
        if excludeOldTransactions {
            // Only the latest transaction of each subscription chain (and the other purchases).
            let latest = Set(chainsOfKey.map(\.latestTransactionID))
            entries = entries.filter { $0.productType != .autoRenewable || latest.contains($0.transactionID) }
        }
        entries.sort {
            ($0.purchaseDate, $0.sequence) > ($1.purchaseDate, $1.sequence)
        }
        var json = ""
        JSONText.rawField(&json, "latest_receipt_info", ReceiptJSON.array(entries), first: true)
        JSONText.rawField(
            &json, "pending_renewal_info",
            "[" + chainsOfKey.map(ReceiptJSON.pendingRenewal).joined(separator: ",") + "]")
        JSONText.field(&json, "latest_receipt", receipt.base64)
        receipts.renderedLatest[cacheKey] = ReceiptBook.RenderedLatest(version: version, json: json)
        return json
    }

    /// Whether the Apple ID has bought any auto-renewable subscription in the app.
    func hasSubscriptions(_ key: AccountAppKey) -> Bool {
        transactions(of: key).contains { $0.productType == .autoRenewable }
    }
}
