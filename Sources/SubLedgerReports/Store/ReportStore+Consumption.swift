import PostgresLibPQ
import SubLedgerCore

extension ReportStore {
    /// Consumption requests received in `[from, to)`, newest first, at most `limit`.
    func consumptionRequests(from: Instant, to: Instant, limit: Int, now: Instant) throws -> [ConsumptionReport.Row] {
        try run(
            """
            WITH \(apps)
            SELECT c.request_id, s.bundle_id, c.environment, c.transaction_id, c.requested_at, c.deadline_at, c.state,
                   c.attempts, c.answered_at, c.last_error, \(missedDeadline(now: now)), c.reason
            FROM consumption_requests c JOIN scope s ON s.app_id = c.app_id
            WHERE \(requested(from: from, to: to))
            ORDER BY c.requested_at DESC, c.request_id DESC LIMIT \(limit)
            """
        ).map { row in
            ConsumptionReport.Row(
                requestID: try row.decode(Int64.self, at: 0), bundleID: try row.decode(String.self, at: 1),
                environment: try row.decode(String.self, at: 2), transactionID: try row.decode(String.self, at: 3),
                requestedAt: try row.instant(at: 4), deadlineAt: try row.instant(at: 5),
                state: try row.decode(String.self, at: 6), attempts: Int(try row.decode(Int32.self, at: 7)),
                answeredAt: try row.optionalInstant(at: 8), lastError: try row.decode(String?.self, at: 9),
                missedDeadline: try row.decode(Bool.self, at: 10), reason: try row.decode(String?.self, at: 11))
        }
    }

    /// The period's requests counted per app and state.
    func consumptionCounts(from: Instant, to: Instant) throws -> [ConsumptionReport.Count] {
        try run(
            """
            WITH \(apps)
            SELECT s.bundle_id, c.state, count(*)
            FROM consumption_requests c JOIN scope s ON s.app_id = c.app_id
            WHERE \(requested(from: from, to: to))
            GROUP BY 1, 2 ORDER BY 1, 2
            """
        ).map { row in
            ConsumptionReport.Count(
                bundleID: try row.decode(String.self, at: 0), state: try row.decode(String.self, at: 1),
                count: try row.decode(Int.self, at: 2))
        }
    }

    /// How many of the period's requests missed their deadline as of `now`.
    func consumptionDeadlineMisses(from: Instant, to: Instant, now: Instant) throws -> Int {
        try run(
            """
            WITH \(apps)
            SELECT count(*)
            FROM consumption_requests c JOIN scope s ON s.app_id = c.app_id
            WHERE \(requested(from: from, to: to)) AND \(missedDeadline(now: now))
            """
        ).single().decode(Int.self, at: 0)
    }

    /// The requests (alias `c`) of the scope's environment received in [`from`, `to`).
    func requested(from: Instant, to: Instant) -> PostgresQuery {
        """
        \(inEnvironment("c.environment")) AND c.requested_at >= \(from)::timestamptz
          AND c.requested_at < \(to)::timestamptz
        """
    }

    /// Missed: still unanswered past the deadline at `now`, sent after it, or given up on because of it.
    func missedDeadline(now: Instant) -> PostgresQuery {
        """
        ((c.state IN ('pending', 'retry') AND c.deadline_at <= \(now)::timestamptz)
            OR (c.state = 'sent' AND c.answered_at > c.deadline_at)
            OR (c.state = 'failed' AND c.last_error LIKE 'deadline_passed%'))
        """
    }
}
