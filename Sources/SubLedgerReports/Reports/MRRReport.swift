import PostgresLibPQ
import SubLedgerCore

/// Monthly recurring revenue and ARR per calendar month and currency, with how it moved: new, expansion,
/// contraction, churned and reactivation (docs/explanation/revenue.md, "MRR"). Amounts are milli-units (`…Milli`).
public struct MRRReport: Sendable, Hashable, Codable {
    /// One month in one currency.
    public struct Row: Sendable, Hashable, Codable {
        /// `YYYY-MM`.
        public var month: String
        /// The instant MRR is measured at: the month's end (the next month's first instant), or the report's
        /// `now` for the current month.
        public var at: Instant
        public var currency: String
        public var mrrMilli: Int64
        /// 12 × MRR.
        public var arrMilli: Int64
        /// Subscribers paying at `at`.
        public var subscribers: Int
        /// How MRR moved since the previous month's end (the start of this month).
        public var movementMilli: MRRMovement
        /// Some of the MRR is priced from the catalog, not by Apple.
        public var estimated: Bool
        /// The part of `mrrMilli` from subscribers on a commitment plan (a monthly plan with a 12-month
        /// commitment, Apple's `billingPlanType` `MONTHLY`): bound until their commitment ends, even with
        /// auto-renew turned off.
        public var committedMrrMilli: Int64
        /// The subscribers counted in `committedMrrMilli`.
        public var committedSubscribers: Int
    }

    /// One month converted into the reporting currency (each currency at the rate of the month's last day).
    public struct ReportingRow: Sendable, Hashable, Codable {
        public var month: String
        public var mrrMilli: Int64
        public var arrMilli: Int64
        public var movementMilli: MRRMovement
        /// `committedMrrMilli` of the month's rows, converted.
        public var committedMrrMilli: Int64
        /// Every currency of the month had a rate.
        public var complete: Bool
    }

    /// The first month's first instant.
    public var from: Instant
    /// The end of the last month (exclusive).
    public var to: Instant
    public var rows: [Row]
    /// The reporting currency asked for, if any.
    public var reportingCurrency: String?
    /// `rows` converted, when a reporting currency was asked for.
    public var reporting: [ReportingRow]?
    /// Currencies without a rate (left out of `reporting`).
    public var missingRates: [MissingRate]
}

extension Reports {
    /// The most months one MRR report covers.
    public static let maximumMRRMonths = 120

    /// MRR for the calendar months (UTC) starting in [`from`, `to`), at most `maximumMRRMonths`; the current
    /// month is measured at `now`. With `reportingCurrency`, also converted with `subledger fx apply`'s rates.
    public static func mrr(
        on connection: PostgresConnection, scope: ReportScope, from: Instant, to: Instant, now: Instant,
        reportingCurrency: String? = nil
    ) throws -> MRRReport {
        try mrr(
            on: connection, scope: scope, from: from, to: to, now: now, reportingCurrency: reportingCurrency,
            source: .facts)
    }

    /// `mrr` from the given source (the tests compare the aggregates with the ledger).
    static func mrr(
        on connection: PostgresConnection, scope: ReportScope, from: Instant, to: Instant, now: Instant,
        reportingCurrency: String?, source: MoneySource
    ) throws -> MRRReport {
        try ReportError.checkRange(from: from, to: to)
        let store = try ReportStore(on: connection, scope: scope)
        let first = ReportCalendar.monthStart(CalendarDay.of(from))
        var monthStarts: [Int64] = []
        var day = first
        while CalendarDay.start(of: day) < to, monthStarts.count < maximumMRRMonths {
            monthStarts.append(day)
            day = ReportCalendar.nextMonthStart(day)
        }
        // Measured just before each month's end: MRR "at the end of January" is what is in force at its last
        // millisecond, so a renewal at midnight on February 1 belongs to February.
        let measured = monthStarts.map { start -> Instant in
            min(CalendarDay.start(of: ReportCalendar.nextMonthStart(start)).adding(milliseconds: -1), now)
        }
        // The previous month's end, or now when the range starts later: the instants measured never go back.
        let baseline = min(CalendarDay.start(of: first).adding(milliseconds: -1), now)
        let lastEnd = CalendarDay.start(of: day)
        let series: [[String: MRRSeries.Point]]
        switch source {
        case .dayTotals, .facts:
            series = try MRRFromFacts.series(
                store: store, monthStarts: monthStarts, measured: measured, now: now)
        case .ledger:
            let chains = try store.revenueChains(
                from: baseline,
                to: max(lastEnd, baseline.adding(milliseconds: 1)))
            series = MRRSeries.compute(chains: chains.map(\.transactions), at: [baseline] + measured)
        }

        var rows: [MRRReport.Row] = []
        var converter = try reportingCurrency.map {
            CurrencyConverter(reportingCurrency: $0, schedules: try store.exchangeSchedules(into: $0))
        }
        var reporting: [MRRReport.ReportingRow] = []
        for (index, points) in series.enumerated() {
            let month = ReportCalendar.monthName(monthStarts[index])
            var converted = MRRReport.ReportingRow(
                month: month, mrrMilli: 0, arrMilli: 0, movementMilli: MRRMovement(), committedMrrMilli: 0,
                complete: true)
            let rateDay = CalendarDay.of(measured[index])
            for point in points.values.sorted(by: { $0.currency < $1.currency }) {
                rows.append(
                    MRRReport.Row(
                        month: month, at: measured[index].adding(milliseconds: 1),
                        currency: point.currency, mrrMilli: point.mrr, arrMilli: point.mrr * 12,
                        subscribers: point.subscribers, movementMilli: point.movement, estimated: point.estimated,
                        committedMrrMilli: point.committedMRR, committedSubscribers: point.committedSubscribers))
                guard converter != nil else { continue }
                func convert(_ amount: Int64) -> Int64? {
                    converter?.convert(amount, from: point.currency, on: rateDay)
                }
                guard let mrr = convert(point.mrr) else {
                    converted.complete = false
                    continue
                }
                converted.mrrMilli += mrr
                converted.committedMrrMilli += convert(point.committedMRR) ?? 0
                let movement = point.movement
                converted.movementMilli =
                    converted.movementMilli
                    + MRRMovement(
                        new: convert(movement.new) ?? 0, expansion: convert(movement.expansion) ?? 0,
                        contraction: convert(movement.contraction) ?? 0, churned: convert(movement.churned) ?? 0,
                        reactivation: convert(movement.reactivation) ?? 0)
            }
            converted.arrMilli = converted.mrrMilli * 12
            reporting.append(converted)
        }
        return MRRReport(
            from: CalendarDay.start(of: first), to: lastEnd, rows: rows,
            reportingCurrency: reportingCurrency, reporting: converter == nil ? nil : reporting,
            missingRates: converter?.missingRates ?? [])
    }
}
