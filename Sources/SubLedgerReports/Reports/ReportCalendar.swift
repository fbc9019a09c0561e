import SubLedgerCore

/// The reports' periods in UTC: days, ISO weeks (from Monday) and calendar months, on day numbers (days since
/// 1970-01-01, as `CalendarDay` counts them) and on `Instant`s. Integer arithmetic on `CivilDate`: exact to the
/// millisecond, with no time zone or Foundation calendar involved.
enum ReportCalendar {
    /// The first day of the month `day` is in.
    static func monthStart(_ day: Int64) -> Int64 {
        monthStart(day, plus: 0)
    }

    /// The first day of the month `months` months after the one `day` is in (before it, when negative).
    static func monthStart(_ day: Int64, plus months: Int64) -> Int64 {
        let date = CivilDate.date(days: day)
        // Months since year 0, floor-divided back into a year and a month (1 ... 12) so that negative steps work.
        let index = date.year * 12 + date.month - 1 + months
        let year = index >= 0 ? index / 12 : (index - 11) / 12
        return CivilDate.days(year: year, month: index - year * 12 + 1, day: 1)
    }

    /// The first day of the month after the one `day` is in.
    static func nextMonthStart(_ day: Int64) -> Int64 {
        monthStart(day, plus: 1)
    }

    /// The Monday of the ISO week `day` is in (1970-01-01 was a Thursday).
    static func weekStart(_ day: Int64) -> Int64 {
        day - (((day + 3) % 7) + 7) % 7
    }

    /// `YYYY-MM` of the month starting on `day`.
    static func monthName(_ day: Int64) -> String { String(CalendarDay.text(day).prefix(7)) }

    /// The first instant of the UTC day `instant` falls on.
    static func dayStart(_ instant: Instant) -> Instant {
        CalendarDay.start(of: CalendarDay.of(instant))
    }

    /// The milliseconds from `start` to `end` (negative when `end` is earlier), held at the ends of `Int64` rather
    /// than trapping when two far-apart instants are given.
    static func milliseconds(from start: Instant, to end: Instant) -> Int64 {
        let (difference, overflow) = end.millisecondsSince1970.subtractingReportingOverflow(
            start.millisecondsSince1970)
        guard overflow else { return difference }
        return end > start ? .max : .min
    }
}
