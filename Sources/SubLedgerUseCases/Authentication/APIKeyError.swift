/// Why an API key cannot be created, revoked or used as asked.
///
/// `code` is stable and machine-readable; `message` never contains a key's secret.
public enum APIKeyError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A key name must have 1 to 200 characters.
    case invalidKeyName
    /// A key id is a UUID.
    case invalidKeyID
    /// No app is configured under the bundle id the key is for.
    case unknownApp(bundleID: String)
    /// An app's data was asked for with an admin key.
    case appKeyRequired
    /// The app of an app key is no longer configured.
    case keyAppRemoved
    /// An app key names its app; a key of another scope names none.
    case appNamedWrongly

    public var code: String {
        switch self {
        case .invalidKeyName: "invalid_key_name"
        case .invalidKeyID: "invalid_key_id"
        case .unknownApp, .keyAppRemoved: "unknown_app"
        case .appKeyRequired: "wrong_key_scope"
        case .appNamedWrongly: "invalid_key_scope"
        }
    }

    public var message: String {
        switch self {
        case .invalidKeyName: "a key name has 1 to 200 characters"
        case .invalidKeyID: "a key id is a UUID"
        case .unknownApp(let bundleID): "no app with bundle id '\(bundleID)'; run `subledger catalog apply` first"
        case .appKeyRequired: "this route needs an app key"
        case .keyAppRemoved: "the key's app is no longer configured"
        case .appNamedWrongly: "an app key names its app (--app); an admin, support or reports key names none"
        }
    }

    public var description: String { "\(code): \(message)" }
}
