import AppStore
import SubLedgerCore

extension SimulatorControl {
    /// The Apple ID's app transaction for an app, as its device's `AppTransaction.shared` gets it, signed now.
    ///
    /// `notFound` when the Apple ID, the app, or any transaction of the Apple ID in the app does not exist: in
    /// the simulator an Apple ID gets an app with its first transaction there (docs/reference/appstore-sim.md).
    public func appTransaction(appleID: String, bundleID: String) throws(SimulatorError) -> AppTransactionResult {
        let now = engine.clock.now()
        let signer = engine.signer
        return try engine.read { state throws(SimulatorError) in
            let account = try state.account(appleID)
            let app = try state.app(bundleID)
            let key = AccountAppKey(appleID: account.appleID, bundleID: app.bundleID)
            guard let payload = try state.appTransaction(key, now: now), let id = payload.appTransactionID else {
                throw SimulatorError(
                    .notFound, "Apple ID \(appleID) has no transaction in \(bundleID), so no app transaction")
            }
            let device = DeviceVerification(
                seed: state.seed, appleID: account.appleID, bundleID: app.bundleID, environment: account.environment)
            return AppTransactionResult(
                signedAppTransaction: try signer.sign(payload), appTransactionID: id,
                deviceVerificationID: device.deviceVerificationID)
        }
    }
}
