import PostgresLibPQ
import SubLedgerCore

/// What the revenue page (`/admin/revenue`) shows: the `mrr` report over a range (by default the last 12
/// months) and the `revenue` report by month over the same range, the very values
/// `subledger report mrr|revenue` print for that range.
public struct RevenuePanel: Sendable, Hashable {
    public var mrr: MRRReport
    public var revenue: RevenueReport
    /// The currency asked to be charted (`RevenuePageQuery.currency`); nil charts the one with the most MRR.
    public var chartedCurrency: String?

    public init(mrr: MRRReport, revenue: RevenueReport, chartedCurrency: String? = nil) {
        self.mrr = mrr
        self.revenue = revenue
        self.chartedCurrency = chartedCurrency
    }

    /// The months the panel covers at `now`: from the first day of the month 11 months back, to `now`.
    public static func range(now: Instant) -> (from: Instant, to: Instant) {
        let today = CalendarDay.of(now)
        var start = ReportCalendar.monthStart(today)
        for _ in 0..<11 { start = ReportCalendar.monthStart(start - 1) }
        return (CalendarDay.start(of: start), now)
    }

    /// Runs both reports over `range(now:)` for every app.
    public static func load(on connection: PostgresConnection, now: Instant) throws -> RevenuePanel {
        try load(on: connection, query: RevenuePageQuery(now: now), now: now)
    }

    /// Runs both reports over the query's range for every app.
    public static func load(on connection: PostgresConnection, query: RevenuePageQuery, now: Instant) throws
        -> RevenuePanel
    {
        RevenuePanel(
            mrr: try Reports.mrr(on: connection, scope: .everything, from: query.from, to: query.to, now: now),
            revenue: try Reports.revenue(
                on: connection, scope: .everything, from: query.from, to: query.to, granularity: .month),
            chartedCurrency: query.currency)
    }

    /// The currency charted: the one asked for, else the one with the most MRR in the last month, else the
    /// most gross revenue.
    var currency: String? {
        if let chartedCurrency { return chartedCurrency }
        let lastMonth = mrr.rows.last?.month
        if let best = mrr.rows.filter({ $0.month == lastMonth }).max(by: { $0.mrrMilli < $1.mrrMilli }) {
            return best.currency
        }
        return revenue.totals.max { $0.amounts.grossMilli < $1.amounts.grossMilli }?.currency
    }
}
