/// Why a Paddle entity, read well, cannot be read as what it means to the ledger.
public struct PaddleMappingError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        /// A field the ledger needs is absent.
        case missingField = "missing_field"
        /// A field is present but out of range, or disagrees with another (a tax above the total, another currency).
        case invalidField = "invalid_field"
    }

    public var code: Code
    /// The field, in Paddle's words.
    public var field: String

    public init(_ code: Code, _ field: String) {
        self.code = code
        self.field = field
    }

    public var description: String { "\(code.rawValue): \(field)" }
}
