import Foundation

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
    }

    public var field: Field
    /// The app's bundle id (stable across restores, unlike `app_id`).
    public var bundleID: String

    public init(_ field: Field, bundleID: String) {
        self.field = field
        self.bundleID = bundleID
    }

    /// Format version, field and bundle id; the field never contains a newline, so the split is unique.
    var associatedData: Data { Data("subledger secret v1\napps.\(field.rawValue)\n\(bundleID)".utf8) }

    public var description: String { "\(field.rawValue) of \(bundleID)" }
}
