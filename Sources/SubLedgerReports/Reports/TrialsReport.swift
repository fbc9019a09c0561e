import PostgresLibPQ
import SubLedgerCore

/// Free trials and paid introductory offers started per cohort (the UTC week or month of the start), by product,
/// and how many converted to a payment.
///
/// The rules (what is a trial, an intro offer, a conversion) are in `docs/explanation/revenue.md`, "Cohorts: trials and
/// retention".
public struct TrialsReport: Sendable, Hashable, Codable {
    /// The length of a cohort: a UTC ISO week (from Monday) or a UTC calendar month.
    public enum Granularity: String, Sendable, Hashable, Codable, CaseIterable {
        case week
        case month
    }

    /// Which offer a chain started with.
    public enum Offer: String, Sendable, Hashable, Codable {
        /// A free trial (introductory, promotional or offer code).
        case trial
        /// A paid introductory offer (pay as you go, pay up front).
        case intro
    }

    /// Starts and outcomes.
    public struct Counts: Sendable, Hashable, Codable {
        public var starts = 0
        /// Starts followed by a payment that was not refunded.
        public var converted = 0
        /// Starts not converted whose offer is still running at the report's `at`.
        public var pending = 0

        public init() {}

        /// `converted / starts` in percent (0 without starts).
        public var conversionPercent: Double { starts > 0 ? Double(converted) * 100 / Double(starts) : 0 }

        mutating func add(_ other: Counts) {
            starts += other.starts
            converted += other.converted
            pending += other.pending
        }
    }

    /// One cohort, app, product and offer.
    public struct Row: Sendable, Hashable, Codable {
        public var cohort: Instant
        public var bundleID: String
        public var productID: String
        public var offer: Offer
        public var counts: Counts
    }

    /// One cohort, all products, per offer.
    public struct Cohort: Sendable, Hashable, Codable {
        public var start: Instant
        public var trial: Counts
        public var intro: Counts
    }

    /// The starts' range, [`from`, `to`).
    public var from: Instant
    public var to: Instant
    /// When the report ran (for `pending`).
    public var at: Instant
    public var granularity: Granularity
    public var rows: [Row]
    /// Every cohort of the range, in order, empty ones included.
    public var cohorts: [Cohort]
    public var totalTrial: Counts
    public var totalIntro: Counts
}

extension Reports {
    /// Offers started in [`from`, `to`) per `granularity` cohort, at `now`.
    public static func trials(
        on connection: PostgresConnection, scope: ReportScope, from: Instant, to: Instant,
        granularity: TrialsReport.Granularity, now: Instant
    ) throws -> TrialsReport {
        try trials(on: connection, scope: scope, from: from, to: to, granularity: granularity, now: now, source: .facts)
    }

    /// `trials` from the given source (the tests compare the aggregate with the ledger).
    static func trials(
        on connection: PostgresConnection, scope: ReportScope, from: Instant, to: Instant,
        granularity: TrialsReport.Granularity, now: Instant, source: CohortSource
    ) throws -> TrialsReport {
        try ReportError.checkRange(from: from, to: to)
        let store = try ReportStore(on: connection, scope: scope)
        let rows = try store.trialCounts(
            from: from, to: to, granularity: granularity.rawValue, now: now, source: source
        ).map { count in
            var counts = TrialsReport.Counts()
            counts.starts = count.starts
            counts.converted = count.converted
            counts.pending = count.pending
            return TrialsReport.Row(
                cohort: count.cohort, bundleID: count.bundleID, productID: count.productID,
                offer: count.offer == "trial" ? .trial : .intro, counts: counts)
        }
        var cohorts = cohortStarts(from: from, to: to, granularity: granularity).map {
            TrialsReport.Cohort(start: $0, trial: .init(), intro: .init())
        }
        let position = Dictionary(uniqueKeysWithValues: cohorts.enumerated().map { ($0.element.start, $0.offset) })
        var totalTrial = TrialsReport.Counts()
        var totalIntro = TrialsReport.Counts()
        for row in rows {
            switch row.offer {
            case .trial: totalTrial.add(row.counts)
            case .intro: totalIntro.add(row.counts)
            }
            guard let index = position[row.cohort] else { continue }
            switch row.offer {
            case .trial: cohorts[index].trial.add(row.counts)
            case .intro: cohorts[index].intro.add(row.counts)
            }
        }
        return TrialsReport(
            from: from, to: to, at: now, granularity: granularity, rows: rows, cohorts: cohorts,
            totalTrial: totalTrial, totalIntro: totalIntro)
    }

    /// The first instants of the UTC weeks (Mondays) or months that overlap [`from`, `to`).
    static func cohortStarts(from: Instant, to: Instant, granularity: TrialsReport.Granularity) -> [Instant] {
        let first = CalendarDay.of(from)
        var day = granularity == .week ? ReportCalendar.weekStart(first) : ReportCalendar.monthStart(first)
        var starts: [Instant] = []
        while CalendarDay.start(of: day) < to, starts.count < 10_000 {
            starts.append(CalendarDay.start(of: day))
            day = granularity == .week ? day + 7 : ReportCalendar.nextMonthStart(day)
        }
        return starts
    }
}
