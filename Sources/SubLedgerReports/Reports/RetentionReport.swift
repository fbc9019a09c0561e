import PostgresLibPQ
import SubLedgerCore

/// Subscription cohorts by the month of their first payment: how many were still paying k months later, how
/// their revenue held up, and what they have paid so far (realized LTV, net of refunds).
///
/// The rules (what is a payment, a refund, "paying in month k") are in `docs/explanation/revenue.md`, "Cohorts: trials
/// and retention".
public struct RetentionReport: Sendable, Hashable, Codable {
    /// One currency's money of a cohort.
    public struct Money: Sendable, Hashable, Codable {
        /// ISO 4217 code; for `reporting`, the reporting currency.
        public var currency: String
        /// Net revenue (gross less refunds) of the transactions bought in month k since each chain's first payment;
        /// nil where the month has not ended for every chain of the cohort.
        public var netByMonth: [Int64?]
        /// `netByMonth[k] / netByMonth[0]` in percent; nil where month k is incomplete or month 0 earned nothing.
        public var revenueRetention: [Double?]
        /// Everything the cohort paid so far, in milli-units.
        public var grossMilli: Int64
        public var refundedMilli: Int64
        public var netMilli: Int64
        /// Realized LTV: `netMilli` per chain of the cohort, in milli-units (rounded down).
        public var ltvMilli: Int64
        /// Transactions priced from the catalog rather than by Apple.
        public var estimated: Int
    }

    /// One cohort: the chains whose first payment fell in the month starting at `start`.
    public struct Cohort: Sendable, Hashable, Codable {
        public var start: Instant
        /// Chains in the cohort.
        public var subscribers: Int
        /// Chains that paid for part of month k since their first payment; nil where month k has not ended for
        /// every chain of the cohort.
        public var paying: [Int?]
        /// `paying[k] / subscribers` in percent.
        public var payingPercent: [Double?]
        /// Per currency, sorted by code.
        public var money: [Money]
        /// All currencies converted to the reporting currency; nil without one.
        public var reporting: Money?
        /// Paid transactions with no known amount (no price from Apple, no catalog price point).
        public var unpriced: Int
        /// Currencies with a transaction that has no exchange rate on or before its purchase day (left out of
        /// `reporting`, never guessed).
        public var missingRates: [String]
    }

    /// The first payments' range, [`from`, `to`).
    public var from: Instant
    public var to: Instant
    /// When the report ran: months ending later are incomplete.
    public var at: Instant
    /// Months since the first payment tracked (0 ..< months).
    public var months: Int
    /// The currency `reporting` is in, when exchange rates are loaded for it.
    public var reportingCurrency: String?
    public var cohorts: [Cohort]
}

extension Reports {
    /// The longest retention a report tracks, in months.
    public static let retentionMonthsLimit = 60

    /// Retention of the chains whose first payment lies in [`from`, `to`), over `months` months since it, at `now`;
    /// money converted to `reportingCurrency`
    /// (by default the only reporting currency `exchange_rates` holds, if exactly one).
    public static func retention(
        on connection: PostgresConnection, scope: ReportScope, from: Instant, to: Instant, months: Int,
        reportingCurrency: String?, now: Instant
    ) throws -> RetentionReport {
        try retention(
            on: connection, scope: scope, from: from, to: to, months: months, reportingCurrency: reportingCurrency,
            now: now, source: .totals)
    }

    /// `retention` from the given source (the tests compare the aggregates with the ledger).
    static func retention(
        on connection: PostgresConnection, scope: ReportScope, from: Instant, to: Instant, months: Int,
        reportingCurrency: String?, now: Instant, source: CohortSource
    ) throws -> RetentionReport {
        try ReportError.checkRange(from: from, to: to)
        guard (1...retentionMonthsLimit).contains(months) else {
            throw ReportError.invalidArgument("months must be between 1 and \(retentionMonthsLimit)")
        }
        let store = try ReportStore(on: connection, scope: scope)
        // Without a requested currency, the only one rates are loaded for (none when none or several are).
        let reportingCurrency = try reportingCurrency ?? store.onlyReportingCurrency()
        let (patterns, money) = try store.retention(
            from: from, to: to, months: months, reportingCurrency: reportingCurrency, source: source)
        // A cohort's month k is complete when it has ended for its latest member: k + 1 months after the cohort's
        // month starts (`start`, the first instant of a UTC month), plus the cohort's month.
        func complete(_ start: Instant, _ month: Int) -> Bool {
            CalendarDay.start(of: ReportCalendar.monthStart(CalendarDay.of(start), plus: Int64(month) + 1)) <= now
        }
        let starts = Set(patterns.map(\.cohort)).union(money.map(\.cohort)).sorted()
        let cohorts = starts.map { start -> RetentionReport.Cohort in
            let chains = patterns.filter { $0.cohort == start }
            let subscribers = chains.reduce(0) { $0 + $1.chains }
            let paying: [Int?] = (0..<months).map { month in
                guard complete(start, month) else { return nil }
                return chains.filter { $0.mask & (Int64(1) << month) != 0 }.reduce(0) { $0 + $1.chains }
            }
            let rows = money.filter { $0.cohort == start }
            func summary(
                currency: String, _ rows: [ReportStore.RetentionMoney], net: (ReportStore.RetentionMoney) -> Int64
            )
                -> RetentionReport.Money
            {
                let netByMonth: [Int64?] = (0..<months).map { month in
                    complete(start, month) ? rows.filter { $0.month == month }.reduce(0) { $0 + net($1) } : nil
                }
                let gross = rows.reduce(0) { $0 + $1.grossMilli }
                let refunded = rows.reduce(0) { $0 + $1.refundedMilli }
                let total = rows.reduce(0) { $0 + net($1) }
                return RetentionReport.Money(
                    currency: currency, netByMonth: netByMonth,
                    revenueRetention: netByMonth.map { value in
                        guard let value, let first = netByMonth.first ?? nil, first > 0 else { return nil }
                        return Double(value) * 100 / Double(first)
                    },
                    grossMilli: gross, refundedMilli: refunded, netMilli: total,
                    ltvMilli: subscribers > 0 ? total / Int64(subscribers) : 0,
                    estimated: rows.reduce(0) { $0 + $1.estimated })
            }
            let currencies = Set(rows.compactMap(\.currency)).sorted()
            var reporting: RetentionReport.Money?
            if let reportingCurrency {
                var converted = summary(currency: reportingCurrency, rows) { $0.reportingNetMilli ?? 0 }
                // Gross and refunds are per currency only; the reporting figure is the converted net.
                converted.grossMilli = converted.netMilli
                converted.refundedMilli = 0
                reporting = converted
            }
            return RetentionReport.Cohort(
                start: start, subscribers: subscribers, paying: paying,
                payingPercent: paying.map { value in
                    value.map { subscribers > 0 ? Double($0) * 100 / Double(subscribers) : 0 }
                },
                money: currencies.map { currency in
                    summary(currency: currency, rows.filter { $0.currency == currency }) {
                        $0.grossMilli - $0.refundedMilli
                    }
                },
                reporting: reporting,
                unpriced: rows.reduce(0) { $0 + $1.unpriced },
                missingRates: Set(rows.filter { $0.missingRate > 0 }.compactMap(\.currency)).sorted())
        }
        return RetentionReport(
            from: from, to: to, at: now, months: months, reportingCurrency: reportingCurrency, cohorts: cohorts)
    }
}
