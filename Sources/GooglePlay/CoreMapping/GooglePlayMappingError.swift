/// Why a Developer API answer credits nothing: a purchase still pending, or a field missing or out of range.
public struct GooglePlayMappingError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Code: String, Hashable, Sendable {
        /// The purchase is pending (a slow payment method) or was never completed: nothing is bought yet.
        case notPurchased = "not_purchased"
        /// A field the ledger needs is absent.
        case missingField = "missing_field"
        /// A field holds what no real answer does (a date outside 1970–9999, an order id of another shape).
        case invalidField = "invalid_field"
    }

    public var code: Code
    /// The field at fault (never its value), or the state for `notPurchased`.
    public var field: String

    public init(_ code: Code, _ field: String) {
        self.code = code
        self.field = field
    }

    public var description: String { "\(code.rawValue): \(field)" }
}
