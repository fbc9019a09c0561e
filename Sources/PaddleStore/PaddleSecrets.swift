import SubLedgerCore
import SubLedgerStore

/// An app's Paddle secrets: the API key SubLedger reads the Paddle API with (and creates checkouts with), and the
/// endpoint secret key of the notification setting Paddle posts the app's events to. Stored as the app's store secrets
/// `paddle`/`api_key` and `paddle`/`webhook_secret` (`StoreSecrets`), from the catalog's `paddle:` settings.
public struct PaddleSecrets: Sendable, Hashable {
    /// `pdl_live_apikey_…` or `pdl_sdbx_apikey_…`, with read access to transactions, subscriptions, adjustments and
    /// events, and write access to transactions (the checkout).
    public var apiKey: String
    /// `pdl_ntfset_…`: the notification setting's `endpoint_secret_key`.
    public var webhookSecret: String

    /// The names of the two secrets among the app's store secrets.
    public static let names = (apiKey: "api_key", webhookSecret: "webhook_secret")

    /// The app's `paddle:` section of the catalog file: `api_key` (or `api_key_file`) and `webhook_secret`.
    public static let catalogSection = StoreCatalogSection(
        store: .paddle,
        secrets: [
            .init(
                name: names.apiKey, description: "a Paddle API key (pdl_live_… or pdl_sdbx_…)", prefixes: ["pdl_"],
                mayBeInFile: true),
            .init(
                name: names.webhookSecret,
                description: "the endpoint secret key (pdl_ntfset_…) of its notification setting",
                prefixes: ["pdl_ntfset_"]),
        ])

    public init(apiKey: String, webhookSecret: String) {
        self.apiKey = apiKey
        self.webhookSecret = webhookSecret
    }

    /// Both secrets of `secrets`, or nil when either is missing.
    public init?(_ secrets: StoreSecrets) {
        guard let apiKey = secrets[.paddle, Self.names.apiKey],
            let webhookSecret = secrets[.paddle, Self.names.webhookSecret]
        else { return nil }
        self.init(apiKey: apiKey, webhookSecret: webhookSecret)
    }

    /// The environment the key belongs to: Paddle's sandbox keys say so (`pdl_sdbx_`); every other is live.
    public var environment: StoreEnvironment {
        apiKey.hasPrefix("pdl_sdbx_") ? .sandbox : .production
    }
}

extension PaddleSecrets: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String { "PaddleSecrets(<redacted>)" }
    public var debugDescription: String { description }
}

extension StoredApp {
    /// The app's Paddle secrets, if it sells through Paddle (both stored).
    public var paddle: PaddleSecrets? { PaddleSecrets(storeSecrets) }
}

extension StoreSecrets {
    /// Sets the Paddle secrets.
    public mutating func setPaddle(_ secrets: PaddleSecrets) {
        self[.paddle, PaddleSecrets.names.apiKey] = secrets.apiKey
        self[.paddle, PaddleSecrets.names.webhookSecret] = secrets.webhookSecret
    }
}
