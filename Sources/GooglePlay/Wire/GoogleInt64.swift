import SubLedgerCore

/// Google's 64-bit integers: the Android Publisher API writes them as JSON strings (`"1700000000000"`),
/// real-time developer notifications sometimes as numbers. Both are read; nothing else is.
public enum GoogleInt64 {
    /// The value of decimal text: an optional `-` and 1 to 19 ASCII digits, within `Int64`; `nil` otherwise.
    public static func parse(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty, bytes.count <= 20 else { return nil }
        var index = 0
        let negative = bytes[0] == UInt8(ascii: "-")
        if negative { index = 1 }
        guard index < bytes.count else { return nil }
        var value: Int64 = 0
        while index < bytes.count {
            let byte = bytes[index]
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let digit = Int64(byte - UInt8(ascii: "0"))
            let (shifted, overflowMultiply) = value.multipliedReportingOverflow(by: 10)
            let (next, overflowAdd) =
                negative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
            guard !overflowMultiply, !overflowAdd else { return nil }
            value = next
            index += 1
        }
        return value
    }

    /// Decodes a string or a whole JSON number as `Int64`.
    static func decode(from container: any SingleValueDecodingContainer) throws -> Int64 {
        if let text = try? container.decode(String.self) {
            guard let value = parse(text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a 64-bit integer")
            }
            return value
        }
        return try container.decode(Int64.self)
    }

    /// The instant of a millisecond count given as text (`purchaseTimeMillis`), or `nil`.
    static func instant(_ text: String?) -> Instant? {
        text.flatMap(parse).map { Instant(millisecondsSince1970: $0) }
    }
}

/// An `Int64` read from a JSON string or number and written as a string, as Google writes int64 fields.
public struct GoogleInt64Value: Codable, Hashable, Sendable {
    /// The value.
    public var value: Int64

    /// Wraps a value.
    public init(_ value: Int64) { self.value = value }

    public init(from decoder: any Decoder) throws {
        value = try GoogleInt64.decode(from: try decoder.singleValueContainer())
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(String(value))
    }
}
