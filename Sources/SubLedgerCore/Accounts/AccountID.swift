/// The id of one of the app's own user accounts (not an Apple ID): non-empty, at most 128 ASCII characters.
///
/// Allowed characters are letters, digits and `. _ @ + -`. The set is deliberately narrow: account ids appear
/// inside idempotency keys (`transferIn:...:<from>-><to>:...`), where `:` or `>` would make keys ambiguous.
public struct AccountID: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// The longest accepted account id, in characters.
    public static let maximumLength = 128

    /// The validated account id.
    public let rawValue: String

    /// Validates `rawValue`; throws when it is empty, too long or holds a disallowed character.
    public init(_ rawValue: String) throws(IdentifierError) {
        guard !rawValue.isEmpty else { throw IdentifierError(code: .empty, identifierKind: "account id") }
        guard rawValue.utf8.count <= Self.maximumLength else {
            throw IdentifierError(code: .tooLong, identifierKind: "account id")
        }
        guard rawValue.utf8.allSatisfy(Self.isAllowed) else {
            throw IdentifierError(code: .invalidCharacter, identifierKind: "account id")
        }
        self.rawValue = rawValue
    }

    private static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "@"), UInt8(ascii: "+"), UInt8(ascii: "-"):
            true
        default:
            false
        }
    }

    public init(from decoder: any Decoder) throws {
        let raw = try decoder.singleValueContainer().decode(String.self)
        try self.init(raw)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public static func < (lhs: AccountID, rhs: AccountID) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { rawValue }
}
