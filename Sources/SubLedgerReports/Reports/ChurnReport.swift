import PostgresLibPQ
import SubLedgerCore

/// Subscriptions started, renewed, expired, recovered and refunded, per day or per month, with churn split by
/// cause (voluntary, involuntary, price increase declined, product unavailable, refunded).
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
        /// The part of `expired` on a commitment plan (a monthly plan with a 12-month commitment, Apple's
        /// `billingPlanType` `MONTHLY`): commitments that ended without renewing, or whose billing failed. Turning
        /// auto-renew off inside a commitment expires nothing before the commitment's end.
        public var expiredCommitted = 0
        /// Recorded state changes from `billing_retry` or `grace_period` back to `active`.
        public var recovered = 0
        /// Expiries with reason `voluntary` (Apple's `expirationIntent` 1: the customer turned auto-renew off).
        public var voluntary = 0
        /// Expiries with reason `billing_error` (intent 2: the payment failed and billing retry gave up).
        public var involuntary = 0
        /// Expiries with reason `price_increase_declined` (intent 3).
        public var priceIncreaseDeclined = 0
        /// Expiries with reason `product_unavailable` (intent 4).
        public var productUnavailable = 0
        /// `revoke` ledger entries with reason `refund` of auto-renewable products: subscription periods Apple
        /// refunded (by the revocation date). Not part of `expired`: a refunded chain is revoked, not expired.
        public var refunded = 0

        public init() {}
    }

    public struct Period: Sendable, Hashable, Codable {
        /// The period's first instant (UTC midnight, or the first of the month at UTC midnight).
        public var start: Instant
        public var counts: Counts
    }

    public var from: Instant
    public var to: Instant
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
    /// ledger observed the change), bucketed by UTC day or month (see `ChurnReport.Granularity`). Expiries are
    /// split by reason (`voluntary`, `involuntary`, ...) and subscription refunds counted beside them.
    public static func churn(on connection: PostgresConnection, scope: ReportScope, from: Instant, to: Instant) throws
        -> ChurnReport
    {
        try churn(on: connection, scope: scope, from: from, to: to, source: .aggregate)
    }

    /// `churn` from the given source (the tests compare the aggregate with the ledger).
    static func churn(
        on connection: PostgresConnection, scope: ReportScope, from: Instant, to: Instant, source: AggregateSource
    ) throws -> ChurnReport {
        try ReportError.checkRange(from: from, to: to)
        let store = try ReportStore(on: connection, scope: scope)
        let granularity: ChurnReport.Granularity =
            ReportCalendar.milliseconds(from: from, to: to) < 62 * 86_400_000 ? .day : .month
        let starts = ChurnBuckets.starts(from: from, to: to, granularity: granularity)
        var periods = starts.map { ChurnReport.Period(start: $0, counts: .init()) }
        let position = Dictionary(uniqueKeysWithValues: starts.enumerated().map { ($0.element, $0.offset) })
        var totals = ChurnReport.Counts()

        for count in try store.churnCounts(from: from, to: to, granularity: granularity, source: source) {
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
        case "expired_committed": expiredCommitted += count
        case "recovered": recovered += count
        case "refunded": refunded += count
        default: break
        }
        guard metric == "expired" else { return }
        switch reason {
        case "voluntary": voluntary += count
        case "billing_error": involuntary += count
        case "price_increase_declined": priceIncreaseDeclined += count
        case "product_unavailable": productUnavailable += count
        default: break
        }
    }
}
