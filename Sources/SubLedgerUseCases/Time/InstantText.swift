import Foundation
import SubLedgerCore

/// Instants as text: RFC 3339 in UTC with milliseconds (`2026-11-22T07:03:26.123Z`), as the API and the commands write
/// and read them.
package enum InstantText {
    package static func format(_ instant: Instant?) -> String? {
        instant.map { instant in
            var bytes: [UInt8] = []
            bytes.reserveCapacity(24)
            return append(instant, to: &bytes)
                ? String(decoding: bytes, as: UTF8.self) : formatThroughFoundation(instant)
        }
    }

    /// `format` through Foundation's ISO 8601 style: the reference for `append`, and the form of instants
    /// outside years 1970 to 9999.
    package static func formatThroughFoundation(_ instant: Instant) -> String {
        let date = Date(timeIntervalSince1970: Double(instant.millisecondsSince1970) / 1000)
        return date.formatted(
            .iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted)
        )
        .replacingOccurrences(of: "+0000", with: "Z")
    }

    /// Parses `2026-11-22T07:03:26Z`, `...26.123Z` or an offset, or whole milliseconds since 1970; `nil` for
    /// anything else or an instant outside `Instant.acceptedRange` (so no date arithmetic on it can overflow).
    package static func parse(_ text: String) -> Instant? {
        guard text.utf8.count <= 64 else { return nil }
        if let milliseconds = Int64(text) {
            return Instant(acceptedMillisecondsSince1970: milliseconds)
        }
        for includingFraction in [true, false] {
            let style = Date.ISO8601FormatStyle(includingFractionalSeconds: includingFraction)
            if let date = try? style.parse(text) {
                return Instant(acceptedMillisecondsSince1970: (date.timeIntervalSince1970 * 1000).rounded())
            }
        }
        return nil
    }

    /// Appends `2026-11-22T07:03:26.123Z` for instants in `Instant.acceptedRange` (years 1970 to 9999);
    /// false, appending nothing, outside it.
    package static func append(_ instant: Instant, to bytes: inout [UInt8]) -> Bool {
        let milliseconds = instant.millisecondsSince1970
        guard milliseconds >= 0, milliseconds < 253_402_300_800_000 else { return false }
        // Exactly as the Foundation form has always written it: `Date` keeps seconds since 2001 as a `Double`,
        // and the fraction of that is truncated to milliseconds (so some instants read a millisecond early,
        // as they always did).
        let sinceReference = Double(milliseconds) / 1000 - 978_307_200
        let wholeSeconds = sinceReference.rounded(.down)
        let nanoseconds = Int64((sinceReference - wholeSeconds) * 1_000_000_000)
        let fraction = min(999, nanoseconds / 1_000_000)
        let dayMilliseconds: Int64 = 86_400_000
        let truncated = (Int64(wholeSeconds) + 978_307_200) * 1000 + fraction
        let days = truncated / dayMilliseconds
        var rest = truncated % dayMilliseconds
        let date = CivilDate.date(days: days)
        func digits(_ value: Int64, _ count: Int) {
            var divisor: Int64 = 1
            for _ in 1..<count { divisor *= 10 }
            var value = value
            while divisor > 0 {
                bytes.append(UInt8(ascii: "0") + UInt8(value / divisor))
                value %= divisor
                divisor /= 10
            }
        }
        digits(date.year, 4)
        bytes.append(UInt8(ascii: "-"))
        digits(date.month, 2)
        bytes.append(UInt8(ascii: "-"))
        digits(date.day, 2)
        bytes.append(UInt8(ascii: "T"))
        digits(rest / 3_600_000, 2)
        rest %= 3_600_000
        bytes.append(UInt8(ascii: ":"))
        digits(rest / 60_000, 2)
        rest %= 60_000
        bytes.append(UInt8(ascii: ":"))
        digits(rest / 1000, 2)
        bytes.append(UInt8(ascii: "."))
        digits(rest % 1000, 3)
        bytes.append(UInt8(ascii: "Z"))
        return true
    }
}
