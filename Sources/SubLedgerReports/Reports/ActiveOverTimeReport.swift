import PostgresLibPQ
import SubLedgerCore

/// Active subscriptions per day over the last days: the admin page's line chart.
public struct ActiveOverTimeReport: Sendable, Hashable, Codable {
    public struct Day: Sendable, Hashable, Codable {
        /// The UTC day (its midnight).
        public var day: Instant
        /// Subscription transactions in force at the end of the day (or at `now`, for today).
        public var active: Int

        public init(day: Instant, active: Int) {
            self.day = day
            self.active = active
        }
    }

    public var now: Instant
    public var days: [Day]
}

extension Reports {
    /// For each of the last `days` UTC days (today included), how many subscription transactions were in
    /// force at the day's end (at `now` for today): `purchase_date <= t < least(expires_date, revocation_date)`.
    /// Renewals of a chain do not overlap and an upgrade ends the old transaction at its revocation date, so
    /// this counts subscriptions. Transactions without `expires_date` (one-time purchases) are not counted.
    ///
    /// One pass over the transactions that end after the first day (`ReportStore.subscriptionEdgeCounts`):
    /// starts and ends are counted per day in SQL and summed up here, so the cost does not grow with `days`.
    public static func activeOverTime(
        on connection: PostgresConnection, scope: ReportScope, days: Int, now: Instant
    ) throws -> ActiveOverTimeReport {
        try activeOverTime(on: connection, scope: scope, days: days, now: now, source: .aggregate)
    }

    /// `activeOverTime` from the given source (the tests compare the aggregate with the ledger).
    static func activeOverTime(
        on connection: PostgresConnection, scope: ReportScope, days: Int, now: Instant, source: AggregateSource
    ) throws -> ActiveOverTimeReport {
        guard (1...3_660).contains(days) else { throw ReportError.invalidArgument("days must be between 1 and 3660") }
        let store = try ReportStore(on: connection, scope: scope)
        let day: Int64 = 86_400_000
        let today = ReportCalendar.dayStart(now)
        let firstDay = today.adding(milliseconds: -Int64(days - 1) * day)
        let firstSample = min(firstDay.adding(milliseconds: day), now)
        var starts = [Int](repeating: 0, count: days)
        var ends = [Int](repeating: 0, count: days)
        for edges in try store.subscriptionEdgeCounts(
            firstDay: firstDay, firstSample: firstSample, now: now, source: source)
        {
            let index = min(max(edges.day, 0), days - 1)
            switch edges.edge {
            case .start: starts[index] += edges.count
            case .end: ends[index] += edges.count
            }
        }
        var points: [ActiveOverTimeReport.Day] = []
        var running = 0
        for index in 0..<days {
            running += starts[index] - ends[index]
            points.append(.init(day: firstDay.adding(milliseconds: Int64(index) * day), active: running))
        }
        return ActiveOverTimeReport(now: now, days: points)
    }
}
