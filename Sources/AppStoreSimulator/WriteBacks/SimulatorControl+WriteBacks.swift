import SubLedgerCore

extension SimulatorControl {
    /// Every Set App Account Token and Finish Transaction call accepted so far, oldest first.
    public func serverWriteBacks() -> [ServerWriteBack] {
        (try? engine.read { state in state.serverWriteBacks }) ?? []
    }

    /// What StoreKit's `Transaction.unfinished` gives the Apple ID's device in the app (`bundleID`): the signed
    /// transactions not finished yet, which the app is handed again on every launch until it, or its server,
    /// finishes them.
    public func unfinishedTransactions(appleID: String, bundleID: String) throws(SimulatorError)
        -> UnfinishedTransactions
    {
        let now = engine.clock.now()
        let signer = engine.signer
        return try engine.read { state throws(SimulatorError) in
            let account = try state.account(appleID)
            let app = try state.app(bundleID)
            return UnfinishedTransactions(
                signedTransactions: try state.unfinishedTransactions(
                    of: AccountAppKey(appleID: account.appleID, bundleID: app.bundleID), signer: signer, now: now))
        }
    }
}

/// `GET /control/apple-ids/{apple_id}/unfinished?bundle_id=`'s answer.
public struct UnfinishedTransactions: Sendable, Hashable, Codable {
    public var signedTransactions: [String]

    enum CodingKeys: String, CodingKey {
        case signedTransactions = "signed_transactions"
    }
}
