/// A simulated app: identity, shared secret, Server API key, notification endpoint and products.
public struct AppDefinition: Sendable, Codable, Hashable {
    /// The bundle id.
    public var bundleID: String
    /// Apple's numeric app id (`adam_id`, `appAppleId`). Default: derived from the seed.
    public var appAppleID: Int64?
    /// The app-specific shared secret `verifyReceipt` requires. Default: derived from the seed.
    public var sharedSecret: String?
    /// The app version receipts state (attribute 3, `bvrs`). Default: `1.0`.
    public var applicationVersion: String?
    /// Where App Store Server Notifications are posted. Default: the simulator's `--notification-url`.
    public var notificationURL: String?
    /// `V2` (signed, default) or `V1` (legacy JSON with the shared secret).
    public var notificationVersion: String?
    /// Billing grace period in days (0 disables it, Apple offers 3, 16 or 28). Default: 0.
    public var gracePeriodDays: Int?
    /// How long Apple keeps retrying a failed renewal, in days. Default: 60.
    public var billingRetryDays: Int?
    /// Server API issuer id (`iss`). Default: derived from the seed.
    public var issuerID: String?
    /// Server API key id (`kid`). Default: derived from the seed.
    public var keyID: String?
    /// A P-256 public key (PEM) the Server API accepts; default: a generated pair whose `.p8` is handed out.
    public var publicKeyPEM: String?
    /// The app's products.
    public var products: [ProductDefinition]?

    /// Creates an app definition; only the bundle id is required.
    public init(
        bundleID: String, appAppleID: Int64? = nil, sharedSecret: String? = nil, applicationVersion: String? = nil,
        notificationURL: String? = nil, notificationVersion: String? = nil, gracePeriodDays: Int? = nil,
        billingRetryDays: Int? = nil, issuerID: String? = nil, keyID: String? = nil, publicKeyPEM: String? = nil,
        products: [ProductDefinition]? = nil
    ) {
        self.bundleID = bundleID
        self.appAppleID = appAppleID
        self.sharedSecret = sharedSecret
        self.applicationVersion = applicationVersion
        self.notificationURL = notificationURL
        self.notificationVersion = notificationVersion
        self.gracePeriodDays = gracePeriodDays
        self.billingRetryDays = billingRetryDays
        self.issuerID = issuerID
        self.keyID = keyID
        self.publicKeyPEM = publicKeyPEM
        self.products = products
    }
}
