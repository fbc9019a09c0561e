import Foundation
import PostgresLibPQ
import SubLedgerCore

/// What the admin page shows of revenue: the `mrr` report over the last 12 months and the `revenue` report
/// by month over the same months, the very values `subledger report mrr|revenue` print for that range.
public struct RevenuePanel: Sendable, Hashable {
    public var mrr: MRRReport
    public var revenue: RevenueReport

    public init(mrr: MRRReport, revenue: RevenueReport) {
        self.mrr = mrr
        self.revenue = revenue
    }

    /// The months the panel covers at `now`: from the first day of the month 11 months back, to `now`.
    public static func range(now: Date) -> (from: Date, to: Date) {
        let today = CalendarDay.of(RevenueCalendar.instant(now))
        var start = RevenueCalendar.monthStart(today)
        for _ in 0..<11 { start = RevenueCalendar.monthStart(start - 1) }
        return (RevenueCalendar.date(CalendarDay.start(of: start)), now)
    }

    /// Runs both reports over `range(now:)` for every app.
    public static func load(on connection: PostgresConnection, now: Date) throws -> RevenuePanel {
        let (from, to) = range(now: now)
        return RevenuePanel(
            mrr: try Reports.mrr(on: connection, scope: .everything, from: from, to: to, now: now),
            revenue: try Reports.revenue(on: connection, scope: .everything, from: from, to: to, granularity: .month))
    }

    /// The currency charted: the one with the most MRR in the last month, else the most gross revenue.
    var currency: String? {
        let lastMonth = mrr.rows.last?.month
        if let best = mrr.rows.filter({ $0.month == lastMonth }).max(by: { $0.mrrMilli < $1.mrrMilli }) {
            return best.currency
        }
        return revenue.totals.max { $0.amounts.grossMilli < $1.amounts.grossMilli }?.currency
    }
}
