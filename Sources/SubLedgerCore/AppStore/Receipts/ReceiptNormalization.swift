extension ReceiptSnapshot {
    /// Normalizes the receipt against `catalog`.
    ///
    /// - Rejects (throws) a receipt whose bundle id is not a configured app, or whose environment the app
    ///   does not accept.
    /// - Dedupes on (`productID`, `chainID`, `transactionID`): `in_app` and
    ///   `latest_receipt_info` repeat each other. When copies differ, the most informative wins (later signed
    ///   date, then one carrying a revocation date, an upgrade mark, a later expiry), by a rule that never
    ///   depends on array order.
    /// - Sorts by (`purchaseDate`, `transactionID`); Apple's array order is not trusted.
    /// - Leaves out, flagged in `ignored`, transactions of products the catalog does not know (they might be
    ///   configured later; re-submitting the receipt then applies them), of another bundle id, or of another
    ///   environment.
    /// - Keeps the newest renewal info per chain (by `observedAt`).
    public func normalized(in catalog: Catalog) throws(LedgerError) -> NormalizedReceipt {
        guard let app = catalog.app(bundleID: bundleID) else {
            throw LedgerError(code: .unknownBundleID, subject: bundleID)
        }
        guard app.environments.contains(environment) else {
            throw LedgerError(code: .environmentNotAllowed, subject: environment.rawValue)
        }
        struct DedupeKey: Hashable {
            var productID: String
            var chainID: String
            var transactionID: String
        }
        var versions: [DedupeKey: Transaction] = [:]
        var ignored: [DedupeKey: IgnoredTransaction] = [:]
        for transaction in transactions {
            let key = DedupeKey(
                productID: transaction.productID,
                chainID: transaction.chainID,
                transactionID: transaction.transactionID
            )
            if let reason = IgnoredTransaction.reason(for: transaction, app: app, environment: environment) {
                ignored[key] = ignored[key] ?? IgnoredTransaction(transaction: transaction, reason: reason)
                continue
            }
            versions[key] =
                versions[key].map {
                    TransactionVersion.newer(($0, $0.signedDate), (transaction, transaction.signedDate)).0
                } ?? transaction
        }
        let byPurchase: (Transaction, Transaction) -> Bool = {
            ($0.purchaseDate, $0.transactionID) < ($1.purchaseDate, $1.transactionID)
        }
        var newestRenewal: [ChainKey: RenewalInfo] = [:]
        for info in renewalInfo where RenewalInfoVersion.isNewer(info, than: newestRenewal[info.chainKey]) {
            newestRenewal[info.chainKey] = info
        }
        return NormalizedReceipt(
            bundleID: bundleID,
            environment: environment,
            observedAt: requestDate ?? creationDate,
            transactions: versions.values.sorted(by: byPurchase),
            renewalInfo: newestRenewal.keys.sorted().compactMap { newestRenewal[$0] },
            ignored: ignored.values.map { $0 }.sorted { byPurchase($0.transaction, $1.transaction) }
        )
    }
}
