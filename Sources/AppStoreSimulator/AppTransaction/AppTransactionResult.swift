/// What a device gets from `AppTransaction.shared` (`GET /control/apple-ids/{apple_id}/app-transaction`):
/// the Apple ID's app transaction for an app, signed now, the same one Get App Transaction Info answers.
public struct AppTransactionResult: Sendable, Codable, Hashable {
    /// The JWS of the `AppTransaction`, signed with the simulator's chain like every signed payload.
    public var signedAppTransaction: String
    /// Its `appTransactionId`: the one every transaction of that Apple ID in the app carries.
    public var appTransactionID: String
    /// The simulated device's `AppStore.deviceVerificationID`, to check `deviceVerification` as StoreKit
    /// documents (SHA-384 of the lower-case nonce followed by this id).
    public var deviceVerificationID: String

    /// Creates a result.
    public init(signedAppTransaction: String, appTransactionID: String, deviceVerificationID: String) {
        self.signedAppTransaction = signedAppTransaction
        self.appTransactionID = appTransactionID
        self.deviceVerificationID = deviceVerificationID
    }
}
