import Crypto
import Foundation
import SeededRandom
import SubLedgerCore

/// The device verification values of an app transaction, as the one simulated device of an Apple ID gets them.
///
/// StoreKit's check: SHA-384 of the ASCII of the lower-case `deviceVerificationNonce` followed by the lower-case
/// `AppStore.deviceVerificationID` equals `deviceVerification`. Everything is derived from the seed, so the
/// same seed gives the same values: the device id from the Apple ID, the nonce from the Apple ID, app and
/// environment (the same app transaction always carries the same nonce).
struct DeviceVerification: Sendable, Hashable {
    /// The simulated device's `AppStore.deviceVerificationID`, a lower-case UUID.
    var deviceVerificationID: String
    /// Apple's `deviceVerificationNonce`, a lower-case UUID.
    var nonce: String
    /// Apple's `deviceVerification`: the base64 SHA-384 above.
    var value: String

    init(seed: UInt64, appleID: String, bundleID: String, environment: StoreEnvironment) {
        func uuid(_ label: String) -> String {
            let bytes = SeedDerivation.bytes(seed: seed, label: label)
            var random = SplitMix64(seed: bytes.prefix(8).reduce(0) { $0 << 8 | UInt64($1) })
            return random.uuid()
        }
        deviceVerificationID = uuid("device:" + appleID)
        nonce = uuid("app-transaction-nonce:\(environment.rawValue)|\(bundleID)|\(appleID)")
        value = Data(SHA384.hash(data: Array((nonce + deviceVerificationID).utf8))).base64EncodedString()
    }
}
