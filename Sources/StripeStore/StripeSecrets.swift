import SubLedgerCore
import SubLedgerStore

/// An app's Stripe secrets: the secret key SubLedger reads the Stripe API with, and the signing secret of the webhook
/// endpoint Stripe sends the app's events to. Stored as the app's store secrets `stripe`/`secret_key` and
/// `stripe`/`webhook_secret` (`StoreSecrets`), from the catalog's `stripe:` settings.
public struct StripeSecrets: Sendable, Hashable {
    /// `sk_live_…`, `sk_test_…`, or a restricted key (`rk_…`) with read access to Billing and payments.
    public var secretKey: String
    /// `whsec_…`.
    public var webhookSecret: String

    /// The names of the two secrets among the app's store secrets.
    public static let names = (secretKey: "secret_key", webhookSecret: "webhook_secret")

    /// The app's `stripe:` section of the catalog file: `secret_key` (or `secret_key_file`) and `webhook_secret`.
    public static let catalogSection = StoreCatalogSection(
        store: .stripe,
        secrets: [
            .init(
                name: names.secretKey, description: "a Stripe secret key (sk_…) or restricted key (rk_…)",
                prefixes: ["sk_", "rk_"], mayBeInFile: true),
            .init(
                name: names.webhookSecret, description: "the signing secret (whsec_…) of its webhook endpoint",
                prefixes: ["whsec_"]),
        ])

    public init(secretKey: String, webhookSecret: String) {
        self.secretKey = secretKey
        self.webhookSecret = webhookSecret
    }

    /// Both secrets of `secrets`, or nil when either is missing.
    public init?(_ secrets: StoreSecrets) {
        guard let secretKey = secrets[.stripe, Self.names.secretKey],
            let webhookSecret = secrets[.stripe, Self.names.webhookSecret]
        else { return nil }
        self.init(secretKey: secretKey, webhookSecret: webhookSecret)
    }
}

extension StripeSecrets: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String { "StripeSecrets(<redacted>)" }
    public var debugDescription: String { description }
}

extension StoredApp {
    /// The app's Stripe secrets, if it sells through Stripe (both stored).
    public var stripe: StripeSecrets? { StripeSecrets(storeSecrets) }
}

extension StoreSecrets {
    /// Sets the Stripe secrets.
    public mutating func setStripe(_ secrets: StripeSecrets) {
        self[.stripe, StripeSecrets.names.secretKey] = secrets.secretKey
        self[.stripe, StripeSecrets.names.webhookSecret] = secrets.webhookSecret
    }
}
