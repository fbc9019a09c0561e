/// Why a string was refused as an `AccountID`, an `OrderID` or an identifier of an `IdentifierRule`.
///
/// The description names the rule that failed, never the offending value (it may be user data).
public struct IdentifierError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable, machine-readable reason.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String {
            case empty
            case tooLong = "too_long"
            case invalidCharacter = "invalid_character"
            case notAUUID = "not_a_uuid"
        }

        private let value: Value

        private init(_ value: Value) { self.value = value }

        /// The identifier is empty.
        public static let empty = Code(.empty)
        /// The identifier is longer than its type allows.
        public static let tooLong = Code(.tooLong)
        /// The identifier holds a character its type does not allow.
        public static let invalidCharacter = Code(.invalidCharacter)
        /// An order id is not a UUID (`xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`, hexadecimal).
        public static let notAUUID = Code(.notAUUID)

        public var description: String { value.rawValue }
    }

    public var code: Code
    /// The kind of identifier that was being built (`account id`, `order id`).
    public var identifierKind: String

    public init(code: Code, identifierKind: String) {
        self.code = code
        self.identifierKind = identifierKind
    }

    public var description: String { "invalid \(identifierKind): \(code)" }
}
