import Foundation
import PostgresLibPQ

/// Active subscriptions per day over the last days: the admin page's line chart.
public struct ActiveOverTimeReport: Sendable, Hashable, Codable {
    public struct Day: Sendable, Hashable, Codable {
        /// The UTC day (its midnight).
        public var day: Date
        /// Subscription transactions in force at the end of the day (or at `now`, for today).
        public var active: Int

        public init(day: Date, active: Int) {
            self.day = day
            self.active = active
        }
    }

    public var now: Date
    public var days: [Day]
}

extension Reports {
    /// For each of the last `days` UTC days (today included), how many subscription transactions were in
    /// force at the day's end (at `now` for today): `purchase_date <= t < least(expires_date, revocation_date)`.
    /// Renewals of a chain do not overlap and an upgrade ends the old transaction at its revocation date, so
    /// this counts subscriptions. Transactions without `expires_date` (one-time purchases) are not counted.
    ///
    /// One pass over the transactions that end after the first day (an index range scan on `expires_date`):
    /// starts and ends are counted per day in SQL and summed up here, so the cost does not grow with `days`.
    public static func activeOverTime(
        on connection: PostgresConnection, scope: ReportScope, days: Int, now: Date
    ) throws -> ActiveOverTimeReport {
        guard (1...3_660).contains(days) else { throw ReportError.invalidArgument("days must be between 1 and 3660") }
        try scope.validate(on: connection)
        let today = ChurnBuckets.starts(from: now, to: now.addingTimeInterval(1), granularity: .day).first ?? now
        let firstDay = today.addingTimeInterval(-Double(days - 1) * 86_400)
        let firstSample = min(firstDay.addingTimeInterval(86_400), now)
        var starts = [Int](repeating: 0, count: days)
        var ends = [Int](repeating: 0, count: days)
        let parameters = scope.parameters + [firstDay, firstSample, now] as [any PostgresEncodable]
        for row in try connection.query(activeOverTimeSQL, parameters) {
            let index = min(max(try row.decode(Int.self, at: 1), 0), days - 1)
            let count = try row.decode(Int.self, at: 2)
            if try row.decode(String.self, at: 0) == "start" { starts[index] += count } else { ends[index] += count }
        }
        var points: [ActiveOverTimeReport.Day] = []
        var running = 0
        for index in 0..<days {
            running += starts[index] - ends[index]
            points.append(.init(day: firstDay.addingTimeInterval(Double(index) * 86_400), active: running))
        }
        return ActiveOverTimeReport(now: now, days: points)
    }

    /// `$3` the first day's midnight, `$4` the first sample instant, `$5` now. A start or end at `x` counts
    /// from the first sample at or after it: day index `ceil((x - $3) / 1 day) - 1`.
    static let activeOverTimeSQL = """
        WITH \(ReportScope.appsCTE),
        spans AS (
            SELECT t.purchase_date AS starts_at,
                   least(t.expires_date, coalesce(t.revocation_date, 'infinity')) AS ends_at
            FROM transactions t JOIN scope s ON s.app_id = t.app_id
            WHERE t.expires_date > $4::timestamptz AND t.purchase_date <= $5::timestamptz
              AND \(ReportScope.environmentCondition("t.environment"))),
        live AS (SELECT * FROM spans WHERE ends_at > $4::timestamptz AND ends_at > starts_at)
        SELECT 'start', greatest(ceil(extract(epoch FROM starts_at - $3::timestamptz) / 86400) - 1, 0)::bigint, count(*)
        FROM live GROUP BY 2
        UNION ALL
        SELECT 'end', (ceil(extract(epoch FROM ends_at - $3::timestamptz) / 86400) - 1)::bigint, count(*)
        FROM live WHERE ends_at <= $5::timestamptz GROUP BY 2
        """
}
