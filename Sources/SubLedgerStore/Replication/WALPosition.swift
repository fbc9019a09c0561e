/// A position in PostgreSQL's write-ahead log (an LSN): what a standby has replayed, what the primary has written.
///
/// Its text is PostgreSQL's own (`pg_lsn`): two hexadecimal numbers of one to eight digits, `16/B374D848`.
/// It is SubLedger's consistency token (docs/guides/scale-out.md, "Read replicas"), so `init?(text:)` takes only
/// that exact shape: a client may send anything.
public struct WALPosition: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The 64-bit byte position.
    public let value: UInt64

    public init(_ value: UInt64) {
        self.value = value
    }

    /// Parses `X/Y` (hex digits only, one to eight on each side); `nil` for anything else.
    public init?(text: some StringProtocol) {
        guard text.utf8.count <= 17 else { return nil }
        let utf8 = Array(text.utf8)
        guard let slash = utf8.firstIndex(of: UInt8(ascii: "/")) else { return nil }
        guard let high = Self.hex(utf8[..<slash]), let low = Self.hex(utf8[(slash + 1)...]) else { return nil }
        value = high << 32 | low
    }

    private static func hex(_ digits: ArraySlice<UInt8>) -> UInt64? {
        guard (1...8).contains(digits.count) else { return nil }
        var result: UInt64 = 0
        for digit in digits {
            let nibble: UInt8
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = digit - UInt8(ascii: "0")
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = digit - UInt8(ascii: "A") + 10
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = digit - UInt8(ascii: "a") + 10
            default: return nil
            }
            result = result << 4 | UInt64(nibble)
        }
        return result
    }

    /// `X/Y`, as PostgreSQL prints it (upper-case hex).
    public var description: String {
        String(value >> 32, radix: 16, uppercase: true) + "/" + String(value & 0xFFFF_FFFF, radix: 16, uppercase: true)
    }

    public static func < (lhs: WALPosition, rhs: WALPosition) -> Bool { lhs.value < rhs.value }

    /// The same point of the log as a record's end: the primary's insert position just after a page header
    /// (24 bytes, 40 at a segment's start) names the page's start, where the last record ended.
    ///
    /// A standby reports the end of the last record it replayed, which is the page boundary: without this,
    /// an idle primary whose last record filled its page exactly would look ahead of a standby that has
    /// everything. Assumes PostgreSQL's default 8 kB pages and 16 MB segments; with others, a standby in that
    /// state only looks behind (the primary answers), never ahead.
    public var recordBoundary: WALPosition {
        let inPage = value % 8192
        if inPage == 24 || (value % (16 * 1024 * 1024) == 40) { return WALPosition(value - inPage) }
        return self
    }

    /// Whether a standby that has replayed up to `self` has every record written before `position`.
    public func covers(_ position: WALPosition) -> Bool {
        self >= position.recordBoundary
    }
}
