/// What a catalog file says besides the core's fields: each app's secrets.
public struct AppSecrets: Sendable, Hashable {
    public var sharedSecret: String?
    public var serverAPI: ServerAPICredentials?
    /// The Google Play service account's JSON key.
    public var googleServiceAccountKey: String?
    /// The Stripe secret key and webhook signing secret.
    public var stripe: StripeSecrets?

    public init(
        sharedSecret: String? = nil, serverAPI: ServerAPICredentials? = nil, googleServiceAccountKey: String? = nil,
        stripe: StripeSecrets? = nil
    ) {
        self.sharedSecret = sharedSecret
        self.serverAPI = serverAPI
        self.googleServiceAccountKey = googleServiceAccountKey
        self.stripe = stripe
    }
}

extension AppSecrets: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String {
        "AppSecrets(sharedSecret: \(sharedSecret == nil ? "none" : "<redacted>"), serverAPI: \(serverAPI.map(\.description) ?? "none"), "
            + "googleServiceAccountKey: \(googleServiceAccountKey == nil ? "none" : "<redacted>"), "
            + "stripe: \(stripe == nil ? "none" : "<redacted>"))"
    }
    public var debugDescription: String { description }
}

/// An app's Stripe secrets: the secret key SubLedger reads the Stripe API with, and the signing secret of the webhook
/// endpoint Stripe sends the app's events to.
public struct StripeSecrets: Sendable, Hashable {
    /// `sk_live_…`, `sk_test_…`, or a restricted key (`rk_…`) with read access to Billing and payments.
    public var secretKey: String
    /// `whsec_…`.
    public var webhookSecret: String

    public init(secretKey: String, webhookSecret: String) {
        self.secretKey = secretKey
        self.webhookSecret = webhookSecret
    }
}

extension StripeSecrets: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String { "StripeSecrets(<redacted>)" }
    public var debugDescription: String { description }
}
