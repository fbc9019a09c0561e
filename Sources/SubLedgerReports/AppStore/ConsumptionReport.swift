import PostgresLibPQ
import SubLedgerCore

/// Apple's consumption requests (customers asking for a refund) and how SubLedger answered each: its state
/// (`pending`, `retry`, `sent`, `skipped_no_consent`, `skipped_disabled`, `failed`), the calls made, and
/// whether Apple's 12-hour deadline was missed. The audit trail of each request is the
/// `consumption_request_attempts` table (docs/guides/operate.md, "Apple asks about a refund").
public struct ConsumptionReport: Sendable, Hashable, Codable {
    public struct Row: Sendable, Hashable, Codable {
        public var requestID: Int64
        public var bundleID: String
        public var environment: String
        public var transactionID: String
        public var requestedAt: Instant
        public var deadlineAt: Instant
        public var state: String
        /// Calls made to Apple.
        public var attempts: Int
        public var answeredAt: Instant?
        public var lastError: String?
        /// Not answered by the deadline: still waiting past it, sent after it, or given up on because of it.
        public var missedDeadline: Bool
        /// Why the customer asked for the refund, as Apple stated it (`consumptionRequestReason`), when it did.
        public var reason: String? = nil
    }

    public struct Count: Sendable, Hashable, Codable {
        public var bundleID: String
        public var state: String
        public var count: Int
    }

    /// The newest `limit` requests received in the period.
    public var rows: [Row]
    /// Every request of the period counted, per app and state.
    public var totals: [Count]
    /// Requests of the period whose deadline was missed.
    public var deadlineMisses: Int
    /// Whether the period holds more requests than `rows`.
    public var truncated: Bool
}

extension Reports {
    /// Consumption requests received from `from` to `to`, newest first (at most `limit`), their count per
    /// app and state, and how many missed Apple's deadline as of `now`.
    public static func consumption(
        on connection: PostgresConnection, scope: ReportScope, from: Instant, to: Instant, limit: Int, now: Instant
    ) throws -> ConsumptionReport {
        let store = try ReportStore(on: connection, scope: scope)
        let rows = try store.consumptionRequests(from: from, to: to, limit: limit, now: now)
        let totals = try store.consumptionCounts(from: from, to: to)
        return ConsumptionReport(
            rows: rows, totals: totals,
            deadlineMisses: try store.consumptionDeadlineMisses(from: from, to: to, now: now),
            truncated: totals.reduce(0) { $0 + $1.count } > rows.count)
    }
}

extension ConsumptionReport {
    public var table: ReportTable {
        ReportTable(
            title: "Consumption requests (Apple asks about a refund)",
            columns: [
                "requested_at", "request", "app", "environment", "transaction_id", "reason", "state", "attempts",
                "deadline", "answered_at", "missed_deadline", "last_error",
            ],
            rows: rows.map {
                [
                    ReportFormat.timestamp($0.requestedAt), String($0.requestID), $0.bundleID, $0.environment,
                    $0.transactionID, $0.reason ?? "", $0.state, String($0.attempts),
                    ReportFormat.timestamp($0.deadlineAt),
                    $0.answeredAt.map(ReportFormat.timestamp) ?? "", $0.missedDeadline ? "yes" : "", $0.lastError ?? "",
                ]
            },
            notes: totals.map { "\($0.bundleID) \($0.state): \($0.count)" } + ["deadline misses: \(deadlineMisses)"]
                + (truncated ? ["(more rows than shown)"] : []))
    }
}
