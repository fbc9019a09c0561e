import SubLedgerCore

/// An app as stored: its database id, the core's view of it, and its secrets.
public struct StoredApp: Sendable, Hashable {
    public var appID: Int64
    /// The app as the catalog defines it (bundle id, environments, products).
    public var definition: App
    /// The app-specific shared secret for verifyReceipt and V1 notifications, if configured.
    public var sharedSecret: String?
    /// App Store Server API credentials, if configured.
    public var serverAPI: ServerAPICredentials?
    /// The secrets of the other stores it sells in (the Google Play service account's JSON key, the Stripe secret
    /// key and webhook signing secret), by store and name; each store's module reads its own.
    public var storeSecrets: StoreSecrets
    /// The installation's account erasure key, which erased ids of every app are digested with (read once).
    public var erasureKeys: AccountErasureKeys
    /// Whether the database is a Citus coordinator (it has the `citus` extension), read with the app: an apply then
    /// links its hash chain after its entries with `ledger_chain_link`, whose statements Citus routes one by one to
    /// the chain's worker, instead of in the statements that write the entries (which Citus would run in several
    /// steps through the coordinator).
    public var onCitus: Bool = false

    public init(
        appID: Int64, definition: App, sharedSecret: String?, serverAPI: ServerAPICredentials? = nil,
        storeSecrets: StoreSecrets = StoreSecrets(),
        erasureKeys: AccountErasureKeys = .init(secretKeys: SecretKeyring())
    ) {
        self.erasureKeys = erasureKeys
        self.appID = appID
        self.definition = definition
        self.sharedSecret = sharedSecret
        self.serverAPI = serverAPI
        self.storeSecrets = storeSecrets
    }

    public var bundleID: String { definition.bundleID }
}

// Secrets stay out of logs and error messages even when a whole value is interpolated.
extension StoredApp: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String {
        "StoredApp(appID: \(appID), bundleID: \(bundleID), sharedSecret: \(sharedSecret == nil ? "none" : "<redacted>"), "
            + "serverAPI: \(serverAPI.map(\.description) ?? "none"), "
            + "storeSecrets: \(storeSecrets))"
    }
    public var debugDescription: String { description }
}
