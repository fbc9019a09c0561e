/// A failure of the store that is not PostgreSQL's own: a missing app, a row that does not decode.
public struct StoreError: Error, CustomStringConvertible, Sendable, Hashable {
    /// A machine-readable reason.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// No app with that bundle id is configured (`subledger catalog apply` adds apps).
        public static let unknownApp = Code(rawValue: "unknown_app")
        /// The product is not in the app's catalog.
        public static let unknownProduct = Code(rawValue: "unknown_product")
        /// The account id is not a valid account id.
        public static let invalidAccount = Code(rawValue: "invalid_account")
        /// A stored row could not be read back: the database was changed outside SubLedger.
        public static let corruptRow = Code(rawValue: "corrupt_row")
        /// The catalog file could not be read.
        public static let invalidCatalog = Code(rawValue: "invalid_catalog")
        /// A revenue setting (reporting currency, Small Business Program period) is not valid.
        public static let invalidRevenueSetting = Code(rawValue: "invalid_revenue_setting")
    }

    public var code: Code
    public var message: String
    public var description: String { "\(code): \(message)" }

    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }
}
