/// A catalog file that cannot be used: malformed YAML or JSON, a field out of its rules, a Production app without
/// `apple_app_id`, an unreadable Server API key file. Its text names the field or the app.
public struct CatalogFileError: Error, CustomStringConvertible, Sendable, Hashable {
    /// The machine-readable code: always `invalid_catalog`.
    public static let code = "invalid_catalog"

    public var message: String
    public var description: String { "\(Self.code): \(message)" }

    public init(_ message: String) { self.message = message }
}
