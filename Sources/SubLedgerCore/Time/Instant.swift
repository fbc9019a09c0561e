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

    public init(from decoder: any Decoder) throws {
        self.millisecondsSince1970 = try decoder.singleValueContainer().decode(Int64.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(millisecondsSince1970)
    }

    public var description: String { "\(millisecondsSince1970)ms" }
}
