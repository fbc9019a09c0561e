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

    public init(appID: Int64, definition: App, sharedSecret: String?, serverAPI: ServerAPICredentials? = nil) {
        self.appID = appID
        self.definition = definition
        self.sharedSecret = sharedSecret
        self.serverAPI = serverAPI
    }

    public var bundleID: String { definition.bundleID }
}

/// An App Store Connect API key for the App Store Server API.
public struct ServerAPICredentials: Sendable, Hashable {
    public var issuerID: String
    public var keyID: String
    /// The `.p8` key as PEM text. Never logged.
    public var privateKeyPEM: String

    public init(issuerID: String, keyID: String, privateKeyPEM: String) {
        self.issuerID = issuerID
        self.keyID = keyID
        self.privateKeyPEM = privateKeyPEM
    }
}

/// What a catalog file says besides the core's fields: each app's secrets.
public struct AppSecrets: Sendable, Hashable {
    public var sharedSecret: String?
    public var serverAPI: ServerAPICredentials?

    public init(sharedSecret: String? = nil, serverAPI: ServerAPICredentials? = nil) {
        self.sharedSecret = sharedSecret
        self.serverAPI = serverAPI
    }
}

// Secrets stay out of logs and error messages even when a whole value is interpolated.
extension StoredApp: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String {
        "StoredApp(appID: \(appID), bundleID: \(bundleID), sharedSecret: \(sharedSecret == nil ? "none" : "<redacted>"), "
            + "serverAPI: \(serverAPI.map(\.description) ?? "none"))"
    }
    public var debugDescription: String { description }
}

extension ServerAPICredentials: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String { "ServerAPICredentials(issuerID: \(issuerID), keyID: \(keyID), privateKey: <redacted>)" }
    public var debugDescription: String { description }
}

extension AppSecrets: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String {
        "AppSecrets(sharedSecret: \(sharedSecret == nil ? "none" : "<redacted>"), serverAPI: \(serverAPI.map(\.description) ?? "none"))"
    }
    public var debugDescription: String { description }
}
