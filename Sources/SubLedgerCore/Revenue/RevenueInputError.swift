/// A revenue input (a price, a currency code, a rate file's line, a catalog price point) that cannot be used.
public struct RevenueInputError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable, machine-readable reason; new codes can be added without breaking callers.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// An amount is not a decimal number with at most the allowed fraction digits, or is out of range.
        public static let invalidAmount = Code("invalid_amount")
        /// A currency or storefront code is not three uppercase letters (ISO 4217 / ISO 3166-1 alpha-3).
        public static let invalidCode = Code("invalid_code")
        /// A date is not `YYYY-MM-DD`.
        public static let invalidDate = Code("invalid_date")
        /// A rate (exchange or tax) is not a positive decimal in range.
        public static let invalidRate = Code("invalid_rate")
        /// A line of a CSV file has the wrong number of fields, or the file has no data.
        public static let malformedFile = Code("malformed_file")

        public var description: String { name }
    }

    public let code: Code
    /// What is wrong, naming the field or line (never more than the offending short value).
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
