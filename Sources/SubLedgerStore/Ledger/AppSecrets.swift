import SubLedgerCore

/// What a catalog file says besides the core's fields: each app's secrets.
public struct AppSecrets: Sendable, Hashable {
    public var sharedSecret: String?
    public var serverAPI: ServerAPICredentials?
    /// The secrets of the other stores the app sells in, by store and name (the Google Play service account's JSON
    /// key, the Stripe secret key and webhook signing secret): each store module names its own.
    public var stores: StoreSecrets

    public init(
        sharedSecret: String? = nil, serverAPI: ServerAPICredentials? = nil, stores: StoreSecrets = StoreSecrets()
    ) {
        self.sharedSecret = sharedSecret
        self.serverAPI = serverAPI
        self.stores = stores
    }
}

extension AppSecrets: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String {
        "AppSecrets(sharedSecret: \(sharedSecret == nil ? "none" : "<redacted>"), serverAPI: \(serverAPI.map(\.description) ?? "none"), "
            + "stores: \(stores))"
    }
    public var debugDescription: String { description }
}

/// An app's secrets for the stores other than the App Store, each named by its store and a name the store's module
/// chooses (`google_play`/`service_account_key`, `stripe`/`secret_key`, `stripe`/`webhook_secret`), stored one row
/// each in `app_store_secrets`, sealed at rest like every secret. A store added to SubLedger states its secrets' names
/// and needs no column of its own. Never printed: its description names the secrets it holds, not their values.
public struct StoreSecrets: Sendable, Hashable {
    private var values: [Store: [String: String]]

    public init() {
        values = [:]
    }

    /// The secret `name` of `store`, or nil when none is stored.
    public subscript(store: Store, name: String) -> String? {
        get { values[store]?[name] }
        set { values[store, default: [:]][name] = newValue }
    }

    /// Whether every secret in `names` of `store` is stored.
    public func holds(_ store: Store, _ names: [String]) -> Bool {
        names.allSatisfy { self[store, $0] != nil }
    }

    /// Every secret held, ordered by store and name.
    public var all: [(store: Store, name: String, value: String)] {
        values.flatMap { store, named in named.map { (store: store, name: $0.key, value: $0.value) } }
            .sorted { ($0.store.rawValue, $0.name) < ($1.store.rawValue, $1.name) }
    }

    public var isEmpty: Bool { values.values.allSatisfy(\.isEmpty) }
}

extension StoreSecrets: CustomStringConvertible, CustomDebugStringConvertible {
    /// The names held, never the values: `google_play/service_account_key, stripe/secret_key (redacted)`.
    public var description: String {
        isEmpty ? "none" : all.map { "\($0.store.rawValue)/\($0.name)" }.joined(separator: ", ") + " (redacted)"
    }
    public var debugDescription: String { description }
}
