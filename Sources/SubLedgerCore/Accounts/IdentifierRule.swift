/// The length and characters an identifier from outside may have: checked where it enters, before it is stored,
/// looked up or written into a report.
///
/// Apple's identifiers are short: transaction ids are digit strings (16 digits today), product ids and bundle ids
/// are dotted names of letters, digits, `.`, `_` and `-`. Bounding them means no crafted value costs more than a
/// normal one anywhere downstream (storage, reports, logs); the narrow character set keeps NUL, control
/// characters and invalid UTF-8 (decoded as U+FFFD) away from libpq, which refuses them.
public struct IdentifierRule: Sendable, Hashable {
    /// What the identifier is, as error messages name it (`transaction id`).
    public let kind: String
    /// The longest accepted identifier, in bytes (all accepted characters are ASCII, so also characters).
    public let maximumLength: Int
    private let characters: Characters

    private enum Characters: Hashable {
        /// `A-Z a-z 0-9 . _ -`: Apple's transaction, product and bundle ids.
        case appleName
        /// `A-Z a-z 0-9 . _ @ + -`: the app's own account ids (see `AccountID`).
        case account
    }

    private init(kind: String, maximumLength: Int, characters: Characters) {
        self.kind = kind
        self.maximumLength = maximumLength
        self.characters = characters
    }

    /// An account id of the app (`AccountID`): at most 128 characters from `A-Z a-z 0-9 . _ @ + -`.
    public static let accountID = IdentifierRule(
        kind: "account id", maximumLength: AccountID.maximumLength, characters: .account)
    /// An App Store transaction id or original transaction id: at most 64 characters from `A-Z a-z 0-9 . _ -`.
    public static let transactionID = IdentifierRule(kind: "transaction id", maximumLength: 64, characters: .appleName)
    /// A product id of the catalog: at most 255 characters from `A-Z a-z 0-9 . _ -`.
    public static let productID = IdentifierRule(kind: "product id", maximumLength: 255, characters: .appleName)
    /// An app's bundle id: at most 255 characters from `A-Z a-z 0-9 . _ -`.
    public static let bundleID = IdentifierRule(kind: "bundle id", maximumLength: 255, characters: .appleName)

    /// `raw` when it follows the rule; otherwise throws saying which part of the rule failed (never the value).
    @discardableResult
    public func validate(_ raw: String) throws(IdentifierError) -> String {
        guard !raw.isEmpty else { throw IdentifierError(code: .empty, identifierKind: kind) }
        guard raw.utf8.count <= maximumLength else { throw IdentifierError(code: .tooLong, identifierKind: kind) }
        guard raw.utf8.allSatisfy(isAllowed) else {
            throw IdentifierError(code: .invalidCharacter, identifierKind: kind)
        }
        return raw
    }

    /// Whether `raw` follows the rule.
    public func accepts(_ raw: String) -> Bool {
        (try? validate(raw)) != nil
    }

    /// A human-readable statement of the rule, for error answers and documentation.
    public var summary: String {
        switch characters {
        case .appleName: "a \(kind) has 1 to \(maximumLength) characters from A-Z a-z 0-9 . _ -"
        case .account: "an \(kind) has 1 to \(maximumLength) characters from A-Z a-z 0-9 . _ @ + -"
        }
    }

    private func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
            true
        case UInt8(ascii: "@"), UInt8(ascii: "+"):
            characters == .account
        default:
            false
        }
    }
}
