/// Why a Stripe answer cannot be read as the ledger's values.
public struct StripeMappingError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        /// A field the ledger needs is absent.
        case missingField = "missing_field"
        /// A field is present but out of range or of the wrong shape.
        case invalidField = "invalid_field"
    }

    public var code: Code
    /// The field, in Stripe's words.
    public var field: String

    public init(_ code: Code, _ field: String) {
        self.code = code
        self.field = field
    }

    public var description: String { "\(code.rawValue): \(field)" }
}
