import SubLedgerCore

/// An Apple payload was authentic and well-formed JSON but lacks what the core's values require.
public struct PayloadMappingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The machine-readable reason.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// A field the core requires is absent.
        public static let missingField = Code("missingField")
        /// The environment is absent or not one of Apple's spellings.
        public static let unknownEnvironment = Code("unknownEnvironment")
        /// A date is outside `Instant.acceptedRange` (before 1970, after 9999, or not a representable number).
        public static let dateOutOfRange = Code("dateOutOfRange")
        /// An identifier (transaction, original transaction or product id) breaks `IdentifierRule`: too long,
        /// or characters Apple's ids never have.
        public static let invalidIdentifier = Code("invalidIdentifier")
        /// A small coded integer (a revocation reason) is beyond what any Apple value or the ledger can hold.
        public static let valueOutOfRange = Code("valueOutOfRange")

        /// The stable machine name.
        public var description: String { name }
    }

    /// The machine-readable reason.
    public let code: Code
    /// Apple's name of the field concerned (a field name, never a value).
    public let field: String

    /// Creates an error for a field.
    public init(_ code: Code, field: String) {
        self.code = code
        self.field = field
    }

    /// `PayloadMappingError(<code>, field: <name>)`.
    public var description: String { "PayloadMappingError(\(code), field: \(field))" }
}

extension PayloadMappingError {
    /// A required identifier of Apple's: present, non-empty and following `rule` (Apple's ids are short
    /// digit strings and dotted names, so a 10 KB or NUL-bearing id is refused here, before the ledger,
    /// the database or a report ever sees it).
    static func identifier(_ value: String?, _ rule: IdentifierRule, field: String) throws(PayloadMappingError)
        -> String
    {
        guard let value, !value.isEmpty else { throw PayloadMappingError(.missingField, field: field) }
        guard rule.accepts(value) else { throw PayloadMappingError(.invalidIdentifier, field: field) }
        return value
    }

    /// An optional identifier: absent or empty reads as absent; present, it must follow `rule`.
    static func optionalIdentifier(_ value: String?, _ rule: IdentifierRule, field: String) throws(PayloadMappingError)
        -> String?
    {
        guard let value, !value.isEmpty else { return nil }
        guard rule.accepts(value) else { throw PayloadMappingError(.invalidIdentifier, field: field) }
        return value
    }

    /// A raw coded value of Apple's (unknown values are kept), refused beyond `Int32`: Apple's codes are
    /// small, and the ledger stores them in `integer` columns, where a larger one would fail the write.
    static func code(_ value: Int?, field: String) throws(PayloadMappingError) -> Int? {
        guard let value else { return nil }
        guard Int32(exactly: value) != nil else { throw PayloadMappingError(.valueOutOfRange, field: field) }
        return value
    }
}
