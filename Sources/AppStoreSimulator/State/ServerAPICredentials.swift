/// The App Store Server API key registered for an app.
public struct ServerAPICredentials: Sendable, Codable, Hashable {
    /// The issuer id (`iss`).
    public var issuerID: String
    /// The key id (`kid`).
    public var keyID: String
    /// The `.p8` private key (PKCS#8 PEM) when the simulator generated the pair; `nil` for a registered key.
    public var privateKeyPEM: String?
    /// The public key the simulator checks signatures with (PEM).
    public var publicKeyPEM: String
}
