/// Why an API key cannot be created or revoked as asked.
///
/// `code` is stable and machine-readable; `message` never contains a key's secret.
public enum APIKeyError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A key name must have 1 to 200 characters.
    case invalidKeyName
    /// A key id is a UUID.
    case invalidKeyID
    /// No app is configured under the bundle id the key is for.
    case unknownApp(bundleID: String)

    public var code: String {
        switch self {
        case .invalidKeyName: "invalid_key_name"
        case .invalidKeyID: "invalid_key_id"
        case .unknownApp: "unknown_app"
        }
    }

    public var message: String {
        switch self {
        case .invalidKeyName: "a key name has 1 to 200 characters"
        case .invalidKeyID: "a key id is a UUID"
        case .unknownApp(let bundleID): "no app with bundle id '\(bundleID)'; run `subledger catalog apply` first"
        }
    }

    public var description: String { "\(code): \(message)" }
}
