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

extension ServerAPICredentials: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String {
        "ServerAPICredentials(issuerID: \(issuerID), keyID: \(keyID), privateKey: <redacted>)"
    }
    public var debugDescription: String { description }
}
