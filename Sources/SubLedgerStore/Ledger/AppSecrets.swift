/// What a catalog file says besides the core's fields: each app's secrets.
public struct AppSecrets: Sendable, Hashable {
    public var sharedSecret: String?
    public var serverAPI: ServerAPICredentials?
    /// The Google Play service account's JSON key.
    public var googleServiceAccountKey: String?

    public init(
        sharedSecret: String? = nil, serverAPI: ServerAPICredentials? = nil, googleServiceAccountKey: String? = nil
    ) {
        self.sharedSecret = sharedSecret
        self.serverAPI = serverAPI
        self.googleServiceAccountKey = googleServiceAccountKey
    }
}

extension AppSecrets: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String {
        "AppSecrets(sharedSecret: \(sharedSecret == nil ? "none" : "<redacted>"), serverAPI: \(serverAPI.map(\.description) ?? "none"), "
            + "googleServiceAccountKey: \(googleServiceAccountKey == nil ? "none" : "<redacted>"))"
    }
    public var debugDescription: String { description }
}
