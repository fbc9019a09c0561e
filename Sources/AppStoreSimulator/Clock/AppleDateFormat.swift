import SubLedgerCore

/// The date spellings Apple's legacy JSON uses, written without Foundation formatters (they are on the
/// verifyReceipt hot path). App receipts' RFC 3339 dates are `RFC3339.format(_:precision: .seconds)`.
enum AppleDateFormat {
    /// `2024-01-05 21:31:34 Etc/GMT`.
    static func gmt(_ instant: Instant) -> String {
        civil(instant.millisecondsSince1970) + " Etc/GMT"
    }

    /// `2024-01-05 13:31:34 America/Los_Angeles` (US Pacific time with daylight saving).
    static func pacific(_ instant: Instant) -> String {
        let milliseconds = instant.millisecondsSince1970
        let offsetHours: Int64 = isPacificDaylightTime(milliseconds) ? -7 : -8
        return civil(milliseconds + offsetHours * 3_600_000) + " America/Los_Angeles"
    }

    /// `yyyy-MM-dd HH:mm:ss` of a UTC millisecond timestamp.
    private static func civil(_ milliseconds: Int64) -> String {
        let seconds = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = CivilDate.date(days: days)
        var out = ""
        out.reserveCapacity(19)
        append(&out, year, width: 4)
        out += "-"
        append(&out, month, width: 2)
        out += "-"
        append(&out, day, width: 2)
        out += " "
        append(&out, secondOfDay / 3600, width: 2)
        out += ":"
        append(&out, secondOfDay % 3600 / 60, width: 2)
        out += ":"
        append(&out, secondOfDay % 60, width: 2)
        return out
    }

    private static func append(_ out: inout String, _ value: Int64, width: Int) {
        let digits = String(value)
        if digits.count < width { out += String(repeating: "0", count: width - digits.count) }
        out += digits
    }

    /// US daylight saving: from the second Sunday of March 02:00 PST to the first Sunday of November 02:00 PDT.
    private static func isPacificDaylightTime(_ milliseconds: Int64) -> Bool {
        let standardSeconds = (milliseconds - 8 * 3_600_000) / 1000
        let (year, _, _) = CivilDate.date(days: standardSeconds / 86_400)
        func nthSunday(month: Int64, n: Int64) -> Int64 {
            let first = CivilDate.days(year: year, month: month, day: 1)
            // 1970-01-01 was a Thursday; weekday 0 = Sunday.
            let weekday = ((first % 7) + 7 + 4) % 7
            return first + (7 - weekday) % 7 + (n - 1) * 7
        }
        let start = nthSunday(month: 3, n: 2) * 86_400 + 2 * 3600
        let end = nthSunday(month: 11, n: 1) * 86_400 + 1 * 3600
        return standardSeconds >= start && standardSeconds < end
    }
}
