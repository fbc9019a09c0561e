/// A UTC calendar day as days since 1970-01-01: what effective dates (price points, small-business periods,
/// tax and exchange rates) are stated in.
public enum CalendarDay {
    /// Days since 1970 of `text` in `YYYY-MM-DD`, or `nil` when it is not a real date of years 1970 ... 9999.
    public static func parse(_ text: String) -> Int64? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
            let year = Int64(parts[0]), let month = Int64(parts[1]), let day = Int64(parts[2]),
            year >= 1970, (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        let days = CivilDate.days(year: year, month: month, day: day)
        let back = CivilDate.date(days: days)
        guard back.year == year, back.month == month, back.day == day else { return nil }
        return days
    }

    /// `YYYY-MM-DD` of `days` since 1970.
    public static func text(_ days: Int64) -> String {
        let date = CivilDate.date(days: days)
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(date.year)-\(two(date.month))-\(two(date.day))"
    }

    /// The UTC day `instant` falls on.
    public static func of(_ instant: Instant) -> Int64 {
        let milliseconds = instant.millisecondsSince1970
        return milliseconds >= 0 ? milliseconds / 86_400_000 : (milliseconds - 86_399_999) / 86_400_000
    }

    /// The first instant of `day`.
    public static func start(of day: Int64) -> Instant {
        Instant(millisecondsSince1970: day.saturatingMultiplied(by: 86_400_000))
    }
}
