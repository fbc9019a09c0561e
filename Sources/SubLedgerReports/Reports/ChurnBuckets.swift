import SubLedgerCore

/// The UTC day or month boundaries that cover a range.
enum ChurnBuckets {
    /// The start of every period that overlaps [`from`, `to`), the first one truncated down to its boundary.
    static func starts(from: Instant, to: Instant, granularity: ChurnReport.Granularity) -> [Instant] {
        let first = CalendarDay.of(from)
        var day = granularity == .day ? first : ReportCalendar.monthStart(first)
        var starts: [Instant] = []
        while CalendarDay.start(of: day) < to {
            starts.append(CalendarDay.start(of: day))
            day = granularity == .day ? day + 1 : ReportCalendar.nextMonthStart(day)
        }
        return starts
    }
}
