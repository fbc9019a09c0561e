/// A value the app attached to a purchase to name its buyer: `appAccountToken` or `applicationUsername`.
///
/// Normalized so that the storage layer and the ledger agree on lookups: surrounding whitespace is dropped,
/// an empty value is no token at all (Apple sometimes sends `applicationUsername` empty, a known bug), and a
/// UUID is lower-cased (Apple may return `appAccountToken` upper-cased).
public struct AccountToken: Hashable, Comparable, Sendable, Codable, CodingKeyRepresentable,
    CustomStringConvertible
{
    /// The normalized token.
    public let rawValue: String

    /// Normalizes `raw`; `nil` when it is absent, empty or only whitespace.
    public init?(_ raw: String?) {
        guard let raw else { return nil }
        let trimmed = Self.trimmingWhitespace(raw)
        guard !trimmed.isEmpty else { return nil }
        rawValue = UUIDFormat.isUUID(trimmed) ? trimmed.lowercased() : trimmed
    }

    /// The tokens `transaction` carries, `appAccountToken` first.
    public static func tokens(of transaction: Transaction) -> [AccountToken] {
        [AccountToken(transaction.accountHint), AccountToken(transaction.applicationUsername)]
            .compactMap { $0 }
    }

    private static func trimmingWhitespace(_ string: String) -> String {
        let isWhitespace: (Character) -> Bool = { $0.isWhitespace }
        guard let first = string.firstIndex(where: { !isWhitespace($0) }),
            let last = string.lastIndex(where: { !isWhitespace($0) })
        else { return "" }
        return String(string[first...last])
    }

    public init(from decoder: any Decoder) throws {
        let raw = try decoder.singleValueContainer().decode(String.self)
        guard let token = AccountToken(raw) else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "empty account token")
            )
        }
        self = token
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public init?<T: CodingKey>(codingKey: T) {
        self.init(codingKey.stringValue)
    }

    public var codingKey: any CodingKey { TokenCodingKey(stringValue: rawValue) }

    private struct TokenCodingKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public static func < (lhs: AccountToken, rhs: AccountToken) -> Bool { lhs.rawValue < rhs.rawValue }

    /// Tokens can be secrets of the app's users: shown redacted.
    public var description: String { "AccountToken(redacted)" }
}
