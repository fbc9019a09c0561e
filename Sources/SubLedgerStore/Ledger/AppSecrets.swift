/// What a catalog file says besides the core's fields: each app's secrets.
public struct AppSecrets: Sendable, Hashable {
    public var sharedSecret: String?
    public var serverAPI: ServerAPICredentials?

    public init(sharedSecret: String? = nil, serverAPI: ServerAPICredentials? = nil) {
        self.sharedSecret = sharedSecret
        self.serverAPI = serverAPI
    }
}

extension AppSecrets: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String {
        "AppSecrets(sharedSecret: \(sharedSecret == nil ? "none" : "<redacted>"), serverAPI: \(serverAPI.map(\.description) ?? "none"))"
    }
    public var debugDescription: String { description }
}
