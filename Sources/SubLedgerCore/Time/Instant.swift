/// A point in time with Apple's precision: whole milliseconds since 1970-01-01T00:00:00Z.
///
/// Apple sends every date as milliseconds (`purchase_date_ms`, `expiresDate`, ...). Keeping them as an
/// integer, rather than `Date`'s floating-point seconds, makes comparisons and idempotency keys exact.
public struct Instant: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// Milliseconds since the Unix epoch.
    public var millisecondsSince1970: Int64

    public init(millisecondsSince1970: Int64) {
        self.millisecondsSince1970 = millisecondsSince1970
    }

    public static func < (lhs: Instant, rhs: Instant) -> Bool {
        lhs.millisecondsSince1970 < rhs.millisecondsSince1970
    }

    /// The instant `milliseconds` later (or earlier, when negative).
    ///
    /// Saturates at the ends of `Int64` instead of trapping: either operand may come from outside (a
    /// catalog duration, an Apple date), and no input may end the process.
    public func adding(milliseconds: Int64) -> Instant {
        Instant(millisecondsSince1970: millisecondsSince1970.saturatingAdding(milliseconds))
    }

    /// The `userInfo` key by which an encoder or a decoder asks for instants as RFC 3339 text rather than the
    /// millisecond count: its value is the `RFC3339.Precision` to write (`RFC3339.format`); text is read back with
    /// `RFC3339.parse`. The reports set it for their JSON, whose times are text to the second.
    public static let rfc3339CodingKey = CodingUserInfoKey(rawValue: "SubLedgerCore.Instant.rfc3339")!

    /// Decodes the millisecond count, or RFC 3339 text when the decoder's `userInfo` has `rfc3339CodingKey`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        guard decoder.userInfo[Self.rfc3339CodingKey] is RFC3339.Precision else {
            self.millisecondsSince1970 = try container.decode(Int64.self)
            return
        }
        guard let instant = RFC3339.parse(try container.decode(String.self)) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an RFC 3339 date-time")
        }
        self = instant
    }

    /// Encodes the millisecond count, or RFC 3339 text at the precision `userInfo[rfc3339CodingKey]` names.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let precision = encoder.userInfo[Self.rfc3339CodingKey] as? RFC3339.Precision {
            try container.encode(RFC3339.format(self, precision: precision))
        } else {
            try container.encode(millisecondsSince1970)
        }
    }

    public var description: String { "\(millisecondsSince1970)ms" }
}
