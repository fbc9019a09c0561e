import SubLedgerCore

/// A date field of Apple's signed (JWS) payloads: milliseconds since 1970, range-checked as it is decoded.
///
/// Apple's JSON carries these dates as numbers. A whole number is taken as is; a number with a fraction
/// (Xcode's StoreKit testing signs `1698148900000.5`) is truncated toward the past, as Apple's own
/// library reads it into a `Date`; anything else (a string, `Int64.max`, a date before 1970 or after
/// 9999) fails the decode with a `DecodingError` whose coding path names the field, so one absurd date
/// can never reach the ledger's arithmetic (see `Instant.acceptedRange`).
@propertyWrapper
public struct AppleMilliseconds: Codable, Hashable, Sendable {
    /// Milliseconds since 1970, always inside `Instant.acceptedRange` when decoded; `nil` when absent.
    public var wrappedValue: Int64?

    /// Wraps a value set in code (tests, the simulator); only decoding checks the range.
    public init(wrappedValue: Int64?) {
        self.wrappedValue = wrappedValue
    }

    /// Decodes a JSON number (whole or fractional) or `null`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            wrappedValue = nil
            return
        }
        let instant: Instant?
        if let whole = try? container.decode(Int64.self) {
            instant = Instant(acceptedMillisecondsSince1970: whole)
        } else if let number = try? container.decode(Double.self) {
            instant = Instant(acceptedMillisecondsSince1970: number)
        } else {
            throw DecodingError.typeMismatch(
                Int64.self,
                .init(codingPath: decoder.codingPath, debugDescription: "\(Self.field(decoder)) is not a number")
            )
        }
        guard let instant else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: Self.outOfRange(Self.field(decoder)))
            )
        }
        wrappedValue = instant.millisecondsSince1970
    }

    /// Encodes the number, or `null` when absent (keyed containers omit absent fields instead).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(wrappedValue)
    }

    /// The message of a date outside the accepted range; names the field, never the value.
    static func outOfRange(_ field: String) -> String {
        "\(field) is outside the accepted dates 1970-01-01T00:00:00Z through 9999-12-31T23:59:59Z"
    }

    private static func field(_ decoder: any Decoder) -> String {
        decoder.codingPath.last?.stringValue ?? "date"
    }
}

extension KeyedDecodingContainer {
    /// An absent or `null` date field is `nil`, as for any optional (synthesized `Decodable` calls this).
    public func decode(_ type: AppleMilliseconds.Type, forKey key: Key) throws -> AppleMilliseconds {
        try decodeIfPresent(type, forKey: key) ?? AppleMilliseconds(wrappedValue: nil)
    }
}

extension KeyedEncodingContainer {
    /// An absent date field is omitted, as for any optional (synthesized `Encodable` calls this).
    public mutating func encode(_ value: AppleMilliseconds, forKey key: Key) throws {
        try encodeIfPresent(value.wrappedValue, forKey: key)
    }
}
