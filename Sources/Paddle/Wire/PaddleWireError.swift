/// Why a body from Paddle (a webhook, an API answer) cannot be read as Paddle's values.
///
/// The field is named in Paddle's words with its place (`details.totals.tax`, `items[0].price.id`); the value never
/// is: a body may carry a customer's data, and an error ends up in logs.
public struct PaddleWireError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        /// Not JSON (invalid UTF-8 included), or not the shape of the whole (an array where an object belongs).
        case malformedJSON = "malformed_json"
        /// A field SubLedger needs is absent or `null`.
        case missingField = "missing_field"
        /// A field is present but of the wrong type, out of range or of the wrong shape.
        case invalidField = "invalid_field"
        /// The body is longer than SubLedger reads.
        case tooLarge = "too_large"
    }

    public var code: Code
    /// The field, in Paddle's words; empty for the whole body.
    public var field: String

    public init(_ code: Code, _ field: String) {
        self.code = code
        self.field = field
    }

    public var description: String { field.isEmpty ? code.rawValue : "\(code.rawValue): \(field)" }
}
