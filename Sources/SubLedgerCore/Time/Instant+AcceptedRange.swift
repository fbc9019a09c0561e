extension Instant {
    /// The earliest instant SubLedger accepts from outside: 1970-01-01T00:00:00.000Z.
    public static let earliestAccepted = Instant(millisecondsSince1970: 0)

    /// The latest instant SubLedger accepts from outside: 9999-12-31T23:59:59.000Z.
    ///
    /// A whole second: swift-certificates rounds a validation time to the nearest second and traps beyond
    /// year 9999, so 23:59:59.5 and later would end the process there.
    public static let latestAccepted = Instant(millisecondsSince1970: 253_402_300_799_000)

    /// The instants SubLedger accepts from outside (Apple's payloads, receipts and API bodies): years 1970
    /// through 9999 (1970-01-01T00:00:00Z through 9999-12-31T23:59:59Z), to the millisecond.
    ///
    /// Apple has no date before the epoch, and year 9999 is the last that every layer (RFC 3339 text,
    /// PostgreSQL `timestamptz`, `Date`) represents exactly; a date outside is a forgery or a bug, and
    /// refusing it where it is decoded keeps absurd values (`Int64.max` milliseconds) away from arithmetic.
    public static let acceptedRange: ClosedRange<Instant> = earliestAccepted...latestAccepted

    /// Whether this instant lies in `acceptedRange`.
    public var isAccepted: Bool { Self.acceptedRange.contains(self) }

    /// The instant of Apple's whole milliseconds since 1970, or `nil` outside `acceptedRange`.
    public init?(acceptedMillisecondsSince1970 milliseconds: Int64) {
        let instant = Instant(millisecondsSince1970: milliseconds)
        guard instant.isAccepted else { return nil }
        self = instant
    }

    /// The instant of a millisecond count that may carry a fraction (Xcode's StoreKit testing signs dates
    /// like `1698148900000.5`), or `nil` when not finite or outside `acceptedRange`.
    ///
    /// The fraction is truncated toward the past (`1698148900000.9` is `1698148900000`), as `Instant(date:)`
    /// does: SubLedger keeps Apple's whole-millisecond precision.
    public init?(acceptedMillisecondsSince1970 milliseconds: Double) {
        guard milliseconds.isFinite else { return nil }
        let whole = milliseconds.rounded(.down)
        // Compare as doubles first: converting an out-of-range double to Int64 would trap.
        guard whole >= Double(Self.earliestAccepted.millisecondsSince1970),
            whole <= Double(Self.latestAccepted.millisecondsSince1970)
        else { return nil }
        self.init(acceptedMillisecondsSince1970: Int64(whole))
    }
}
