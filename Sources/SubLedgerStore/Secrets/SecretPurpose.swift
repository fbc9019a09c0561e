import Foundation
import SubLedgerCore

/// What a sealed secret is for: which app and which of its fields.
///
/// It is the AES-GCM associated data, so a ciphertext opens only as the secret it was sealed as: copying
/// one app's sealed shared secret onto another app, or into another field, makes it fail to open.
public struct SecretPurpose: Sendable, Hashable, CustomStringConvertible {
    /// A secret field of an app.
    public struct Field: RawRepresentable, Sendable, Hashable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// `apps.shared_secret`: verifyReceipt's password and what V1 notifications carry.
        public static let sharedSecret = Field(rawValue: "shared_secret")
        /// `apps.server_api_private_key`: the App Store Server API `.p8` key (PEM).
        public static let serverAPIPrivateKey = Field(rawValue: "server_api_private_key")
        /// A row of `app_store_secrets`: the secret `name` of `store` (`StoreSecrets`), as `<store>_<name>`
        /// (`stripe_secret_key`, `stripe_webhook_secret`). Google Play's are `google_<name>`
        /// (`google_service_account_key`): the name its key was sealed under when it was a column of `apps`, kept
        /// so that seal still opens.
        public static func storeSecret(_ store: Store, _ name: String) -> Field {
            Field(rawValue: (store == .googlePlay ? "google" : store.rawValue) + "_" + name)
        }
        /// `webhook_endpoints.secret` (and `previous_secret`): the key that signs an endpoint's requests.
        public static let webhookSecret = Field(rawValue: "webhook_secret")
        /// `account_erasure_keys.key_sealed`: the installation's account erasure key (`AccountErasureKeys`).
        public static let accountErasureKey = Field(rawValue: "account_erasure_key")
    }

    public var field: Field
    /// The app's bundle id (stable across restores, unlike `app_id`).
    public var bundleID: String

    /// The webhook endpoint the secret signs for; `nil` for the apps' own secrets.
    public var endpointID: String?

    public init(_ field: Field, bundleID: String) {
        self.field = field
        self.bundleID = bundleID
        self.endpointID = nil
    }

    /// The signing secret of the webhook endpoint `endpointID` of the app `bundleID`. The current and the
    /// previous secret share it: rotation moves a sealed secret between the two columns of one endpoint.
    public static func webhookSecret(endpointID: String, bundleID: String) -> SecretPurpose {
        var purpose = SecretPurpose(.webhookSecret, bundleID: bundleID)
        purpose.endpointID = endpointID
        return purpose
    }

    /// The installation's account erasure key: one for every app, so it names none.
    public static let accountErasureKey = SecretPurpose(.accountErasureKey, bundleID: "")

    /// Format version, field and bundle id (and the endpoint for a webhook secret); none of them contains a
    /// newline, so the split is unique. The apps' secrets keep the text they were first sealed with.
    var associatedData: Data {
        if field == .accountErasureKey { return Data("subledger secret v1\naccount_erasure_keys.key_sealed".utf8) }
        if let endpointID {
            return Data("subledger secret v1\nwebhook_endpoints.\(field.rawValue)\n\(bundleID)\n\(endpointID)".utf8)
        }
        return Data("subledger secret v1\napps.\(field.rawValue)\n\(bundleID)".utf8)
    }

    public var description: String {
        if field == .accountErasureKey { return "account erasure key" }
        return endpointID.map { "\(field.rawValue) of webhook endpoint \($0)" } ?? "\(field.rawValue) of \(bundleID)"
    }
}
