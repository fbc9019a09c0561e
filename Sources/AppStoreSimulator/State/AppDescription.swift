/// What the simulator holds for an app, including the credentials a Server API client needs.
public struct AppDescription: Sendable, Codable, Hashable {
    /// The bundle id.
    public var bundleID: String
    /// Apple's numeric app id.
    public var appAppleID: Int64
    /// The shared secret for `verifyReceipt` and V1 notifications.
    public var sharedSecret: String
    /// The app version receipts state.
    public var applicationVersion: String
    /// Where notifications go, if anywhere.
    public var notificationURL: String?
    /// `V1` or `V2`.
    public var notificationVersion: String
    /// Billing grace period in days.
    public var gracePeriodDays: Int
    /// Billing retry length in days.
    public var billingRetryDays: Int
    /// Server API credentials.
    public var serverAPI: ServerAPICredentials
    /// The app's products.
    public var products: [ProductDefinition]
}
