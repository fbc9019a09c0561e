import AppStore
import SubLedgerCore

extension SimulatorState {
    /// The Apple ID and app whose app transaction Get App Transaction Info finds by `id`: a transaction id or an
    /// original transaction id (both are transactions), or an `appTransactionId`, of the authenticated app in the
    /// endpoint's environment; nil for any other id.
    func appTransactionOwner(of id: String, bundleID: String, environment: StoreEnvironment) -> AccountAppKey? {
        if let record = transactions[id] {
            guard record.bundleID == bundleID, record.environment == environment else { return nil }
            return AccountAppKey(appleID: record.appleID, bundleID: record.bundleID)
        }
        guard let key = appTransactionKeys[id], key.bundleID == bundleID,
            accounts[key.appleID]?.environment == environment
        else { return nil }
        return key
    }

    /// The Apple ID's app transaction for the app, as its device's `AppTransaction.shared` holds it, signed at
    /// `now`; nil when the Apple ID never got the app.
    ///
    /// The simulator has no download of its own: an Apple ID got the app with its first transaction in it, so
    /// `originalPurchaseDate` is the earliest `purchaseDate` of its transactions there (a family-shared copy
    /// counts), and an Apple ID with none has no app transaction.
    func appTransaction(_ key: AccountAppKey, now: Instant) throws(SimulatorError) -> AppTransaction? {
        let account = try account(key.appleID)
        let app = try app(key.bundleID)
        let first = transactions(of: key).min { ($0.purchaseDate, $0.sequence) < ($1.purchaseDate, $1.sequence) }
        guard let first else { return nil }
        return SignedPayloads.appTransaction(
            app: app.description, account: account, originalPurchaseDate: first.purchaseDate,
            device: DeviceVerification(
                seed: seed, appleID: account.appleID, bundleID: app.bundleID, environment: account.environment),
            signedAt: now)
    }
}
