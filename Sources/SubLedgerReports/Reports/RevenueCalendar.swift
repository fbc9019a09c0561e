import Foundation
import SubLedgerCore

/// The revenue reports' periods: UTC days, ISO weeks (from Monday) and calendar months, as `Instant`s.
enum RevenueCalendar {
    static func instant(_ date: Date) -> Instant {
        Instant(millisecondsSince1970: Int64((date.timeIntervalSince1970 * 1_000).rounded(.down)))
    }

    static func date(_ instant: Instant) -> Date {
        Date(timeIntervalSince1970: Double(instant.millisecondsSince1970) / 1_000)
    }

    /// The first day of the month `day` is in.
    static func monthStart(_ day: Int64) -> Int64 {
        let date = CivilDate.date(days: day)
        return CivilDate.days(year: date.year, month: date.month, day: 1)
    }

    /// The first day of the month after the one `day` is in.
    static func nextMonthStart(_ day: Int64) -> Int64 {
        let date = CivilDate.date(days: day)
        return date.month == 12
            ? CivilDate.days(year: date.year + 1, month: 1, day: 1)
            : CivilDate.days(year: date.year, month: date.month + 1, day: 1)
    }

    /// The Monday of the ISO week `day` is in (1970-01-01 was a Thursday).
    static func weekStart(_ day: Int64) -> Int64 {
        day - (((day + 3) % 7) + 7) % 7
    }

    /// `YYYY-MM` of the month starting on `day`.
    static func monthName(_ day: Int64) -> String { String(CalendarDay.text(day).prefix(7)) }
}
