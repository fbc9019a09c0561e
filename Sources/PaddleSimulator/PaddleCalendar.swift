/// The dates Paddle writes (RFC 3339 with microseconds, UTC) and the billing arithmetic on them: a month later is
/// the same day of the month, or the month's last day when it has fewer (Jan 31 + 1 month = Feb 28).
public enum PaddleCalendar {
    /// A billing or trial interval (`billing_cycle.interval`).
    public enum Interval: String, Sendable, CaseIterable {
        case day, week, month, year
    }

    /// The latest instant handled: 9999-12-31T23:59:59Z.
    public static let latest: Int64 = 253_402_300_799

    /// `seconds` (since 1970, UTC) as Paddle writes a date: `2025-01-01T00:00:00.000000Z`.
    public static func format(_ seconds: Int64) -> String {
        let clamped = min(max(seconds, 0), latest)
        let days = clamped / 86_400
        let rest = clamped % 86_400
        let (year, month, day) = civil(days)
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let yearText = String(repeating: "0", count: max(0, 4 - String(year).count)) + String(year)
        return
            "\(yearText)-\(two(month))-\(two(day))T\(two(rest / 3600)):\(two(rest / 60 % 60)):\(two(rest % 60)).000000Z"
    }

    /// Reads `YYYY-MM-DDTHH:MM:SS[.fraction](Z|+00:00)`; nil for anything else or a date out of range.
    public static func parse(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes.count <= 40, bytes[4] == 45, bytes[7] == 45, bytes[10] == 84 || bytes[10] == 116,
            bytes[13] == 58, bytes[16] == 58
        else { return nil }
        func number(_ range: Range<Int>) -> Int64? {
            var value: Int64 = 0
            for index in range {
                guard (48...57).contains(bytes[index]) else { return nil }
                value = value * 10 + Int64(bytes[index] - 48)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
            let minute = number(14..<16), let second = number(17..<19), (1...12).contains(month),
            day >= 1, day <= daysIn(year: year, month: month), hour < 24, minute < 60, second < 60
        else { return nil }
        var index = 19
        if bytes[index] == 46 {
            index += 1
            while index < bytes.count, (48...57).contains(bytes[index]) { index += 1 }
        }
        let zone = String(decoding: bytes[index...], as: UTF8.self)
        guard zone == "Z" || zone == "z" || zone == "+00:00" else { return nil }
        return days(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second
    }

    /// `seconds` moved on by `frequency` intervals; nil past `latest` or for a frequency out of 1...1000.
    public static func adding(_ interval: Interval, _ frequency: Int64, to seconds: Int64) -> Int64? {
        guard (1...1000).contains(frequency), (0...latest).contains(seconds) else { return nil }
        let result: Int64
        switch interval {
        case .day: result = seconds + frequency * 86_400
        case .week: result = seconds + frequency * 7 * 86_400
        case .month, .year:
            let months = interval == .month ? frequency : frequency * 12
            let (year, month, day) = civil(seconds / 86_400)
            let total = year * 12 + (month - 1) + months
            let newYear = total / 12
            let newMonth = total % 12 + 1
            let newDay = min(day, daysIn(year: newYear, month: newMonth))
            result = days(year: newYear, month: newMonth, day: newDay) * 86_400 + seconds % 86_400
        }
        return result <= latest ? result : nil
    }

    static func daysIn(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of a date in the proleptic Gregorian calendar (Howard Hinnant's algorithm).
    static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        let shifted = month <= 2 ? year - 1 : year
        let era = shifted / 400
        let yearOfEra = shifted - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func civil(_ days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468
        let era = shifted / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
