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
        self.rawValue = try IdentifierRule.accountID.validate(rawValue)
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
