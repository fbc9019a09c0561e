import Foundation
import PostgresLibPQ
import SubLedgerCore

/// Parsing of the reports' textual arguments (command-line flags and HTTP query parameters alike).
public enum ReportArguments {
    /// A duration such as `7d`, `12h`, `30m`, `45s` or `2w`: a positive whole number and one unit.
    public static func duration(_ text: String) throws -> Duration {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        guard let unit = trimmed.last, let value = Int64(trimmed.dropLast()), value > 0 else {
            throw ReportError.invalidArgument(
                "'\(text)' is not a duration: use a whole number and a unit, like 7d or 12h")
        }
        let seconds: Int64
        switch unit {
        case "s": seconds = 1
        case "m": seconds = 60
        case "h": seconds = 3_600
        case "d": seconds = 86_400
        case "w": seconds = 604_800
        default:
            throw ReportError.invalidArgument("'\(text)' has an unknown unit: use s, m, h, d or w")
        }
        guard value <= 3_660 * 86_400 / seconds else {
            throw ReportError.invalidArgument("'\(text)' is longer than ten years")
        }
        return .seconds(value * seconds)
    }

    /// An instant: `now`, a UTC date `2025-01-31` (its midnight), or an ISO 8601 date and time with a zone
    /// (`2025-01-31T12:00:00Z`, `2025-01-31T12:00:00.250+02:00`).
    ///
    /// The text is read by Foundation's ISO 8601 parser, the reports' one remaining use of `Date`: it accepts
    /// exactly what the commands and `/v1/admin/reports` always accepted (`RFC3339.parse` is stricter about some
    /// forms and more lenient about others), and its `Date` becomes an `Instant` at once.
    public static func instant(_ text: String, now: Instant) throws -> Instant {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.lowercased() == "now" { return now }
        if trimmed.count == 10, let date = try? Date(trimmed + "T00:00:00Z", strategy: .iso8601) {
            return instant(date)
        }
        if let date = try? Date(trimmed, strategy: .iso8601) { return instant(date) }
        if let date = try? Date(trimmed, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) {
            return instant(date)
        }
        throw ReportError.invalidArgument(
            "'\(text)' is not a date: use YYYY-MM-DD (UTC) or an ISO 8601 time with a zone, like 2025-01-31T12:00:00Z")
    }

    /// The instant of a parsed `date`: rounded to the microsecond, as PostgreSQL received a `Date` parameter
    /// (`PostgresTimestamp(_:)`), then truncated toward the past to whole milliseconds. A time written with
    /// milliseconds (`.250`) is exactly that instant; truncating the `Date`'s floating-point seconds directly would
    /// lose a millisecond for some (`.002` is 0.00199... seconds).
    private static func instant(_ date: Date) -> Instant {
        Instant(millisecondsSince1970: PostgresTimestamp(date).millisecondsSince1970)
    }

    /// A positive row limit, at most `maximum`.
    public static func limit(_ text: String, maximum: Int = 100_000) throws -> Int {
        guard let value = Int(text), (1...maximum).contains(value) else {
            throw ReportError.invalidArgument(
                "the limit must be a whole number between 1 and \(maximum), not '\(text)'")
        }
        return value
    }
}
