import Foundation
import PostgresLibPQ

/// Subscriptions started, renewed, expired and recovered, per day or per month.
public struct ChurnReport: Sendable, Hashable, Codable {
    /// The length of one period: a UTC day for ranges shorter than 62 days, else a UTC calendar month.
    public enum Granularity: String, Sendable, Hashable, Codable {
        case day
        case month
    }

    /// The counts of one period (or of the whole range, in `totals`).
    public struct Counts: Sendable, Hashable, Codable {
        /// `grant` ledger entries of auto-renewable products: first purchases of a chain.
        public var started = 0
        /// `extend` ledger entries: later transactions of a chain (renewals).
        public var renewed = 0
        /// Recorded state changes to `expired`.
        public var expired = 0
        /// `expired` split by `expiration_reason` (`voluntary`, `billing_error`, ..., `unknown`).
        public var expiredByReason: [String: Int] = [:]
        /// Recorded state changes from `billing_retry` or `grace_period` back to `active`.
        public var recovered = 0

        public init() {}
    }

    public struct Period: Sendable, Hashable, Codable {
        /// The period's first instant (UTC midnight, or the first of the month at UTC midnight).
        public var start: Date
        public var counts: Counts
    }

    public var from: Date
    public var to: Date
    public var granularity: Granularity
    public var periods: [Period]
    public var totals: Counts

    /// Every expiration reason that occurs, sorted: the table's reason columns.
    public var expirationReasons: [String] {
        Array(Set(totals.expiredByReason.keys)).sorted()
    }
}

extension Reports {
    /// Churn over [`from`, `to`): ledger entries by `effective_at`, state changes by `changed_at` (when the
    /// ledger observed the change), bucketed by UTC day or month (see `ChurnReport.Granularity`).
    public static func churn(on connection: PostgresConnection, scope: ReportScope, from: Date, to: Date) throws
        -> ChurnReport
    {
        try ReportError.checkRange(from: from, to: to)
        let store = try ReportStore(on: connection, scope: scope)
        let granularity: ChurnReport.Granularity = to.timeIntervalSince(from) < 62 * 86_400 ? .day : .month
        let starts = ChurnBuckets.starts(from: from, to: to, granularity: granularity)
        var periods = starts.map { ChurnReport.Period(start: $0, counts: .init()) }
        let position = Dictionary(uniqueKeysWithValues: starts.enumerated().map { ($0.element, $0.offset) })
        var totals = ChurnReport.Counts()

        for count in try store.churnCounts(from: from, to: to, granularity: granularity) {
            guard let index = position[count.periodStart] else { continue }
            let reason = count.reason ?? "unknown"
            periods[index].counts.record(count.metric, reason: reason, count: count.count)
            totals.record(count.metric, reason: reason, count: count.count)
        }
        return ChurnReport(from: from, to: to, granularity: granularity, periods: periods, totals: totals)
    }
}

extension ChurnReport.Counts {
    mutating func record(_ metric: String, reason: String, count: Int) {
        switch metric {
        case "started": started += count
        case "renewed": renewed += count
        case "expired":
            expired += count
            expiredByReason[reason, default: 0] += count
        case "recovered": recovered += count
        default: break
        }
    }
}
