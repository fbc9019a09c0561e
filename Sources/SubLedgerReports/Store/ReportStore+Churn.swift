import PostgresLibPQ
import SubLedgerCore

extension ReportStore {
    /// One churn metric counted in one period.
    struct ChurnCount {
        /// `started`, `renewed`, `expired`, `expired_committed`, `recovered` or `refunded` (see
        /// `ChurnReport.Counts`).
        var metric: String
        /// The expiration reason of `expired` (`unknown` when none was recorded); nil for the other metrics.
        var reason: String?
        /// The period's first instant (`date_trunc` in UTC).
        var periodStart: Instant
        var count: Int
    }

    /// Over [`from`, `to`), per UTC day or month: `grant` ledger entries of auto-renewable products
    /// (`started`) and `extend` entries (`renewed`) by `effective_at`; state changes to `expired` from another
    /// state, by reason (`expired`), and from `billing_retry` or `grace_period` back to `active` (`recovered`),
    /// by `changed_at`; `revoke` entries with reason `refund` of auto-renewable products (`refunded`) by
    /// `effective_at`.
    ///
    /// From `.aggregate` (the default), the entries of the whole UTC days in the range come from
    /// `ledger_entry_day_counts` (schema step 20) and only those of the partial days at its edges from
    /// `ledger_entries`; from `.ledger`, every entry from `ledger_entries` (the reference).
    func churnCounts(
        from: Instant, to: Instant, granularity: ChurnReport.Granularity, source: AggregateSource = .aggregate
    ) throws -> [ChurnCount] {
        let rows: PostgresRows
        switch source {
        case .ledger:
            rows = try run(churnCountsFromLedger(from: from, to: to, granularity: granularity.rawValue))
        case .aggregate:
            // The whole days [firstDay, endDay) by day number; none when the range holds no whole day, and then
            // its edges are the whole range.
            // The first midnight at or after `from` (the day of its last millisecond before that midnight), and
            // the last at or before `to`.
            var firstDay = CalendarDay.of(from.adding(milliseconds: 86_399_999))
            var endDay = CalendarDay.of(to)
            var wholeFrom = CalendarDay.start(of: firstDay)
            var wholeTo = CalendarDay.start(of: endDay)
            if firstDay >= endDay {
                (firstDay, endDay, wholeFrom, wholeTo) = (0, 0, to, to)
            }
            rows = try run(
                churnCountsFromDays(
                    from: from, to: to, granularity: granularity.rawValue, wholeFrom: wholeFrom, wholeTo: wholeTo,
                    firstDay: Int(firstDay), endDay: Int(endDay)))
        }
        return try rows.map { row in
            ChurnCount(
                metric: try row.decode(String.self, at: 0), reason: try row.decode(String?.self, at: 1),
                periodStart: try row.instant(at: 2), count: try row.decode(Int.self, at: 3))
        }
    }

    /// The metrics both churn queries read from `chain_state_changes` (no aggregate keeps them): per UTC day of
    /// [`from`, `to`), changes to `expired` from another state by reason, those of them on a commitment plan (the plan
    /// each change recorded, schema step 34), and back to `active` from `billing_retry` or `grace_period`. Three
    /// branches of a `UNION ALL` over (metric, reason, day, count).
    func churnStateChanges(from: Instant, to: Instant) -> PostgresQuery {
        """
        SELECT 'expired', coalesce(x.expiration_reason, 'unknown'), \(Self.utcDay("x.changed_at")), count(*)
        FROM chain_state_changes x JOIN scope s ON s.app_id = x.app_id
        WHERE x.state = 'expired' AND x.previous_state IS DISTINCT FROM 'expired'
          AND \(inEnvironment("x.environment"))
          AND x.changed_at >= \(from)::timestamptz AND x.changed_at < \(to)::timestamptz
        GROUP BY 2, 3
        UNION ALL
        SELECT 'expired_committed', NULL, \(Self.utcDay("x.changed_at")), count(*)
        FROM chain_state_changes x JOIN scope s ON s.app_id = x.app_id
        WHERE x.state = 'expired' AND x.previous_state IS DISTINCT FROM 'expired' AND x.billing_plan = 'MONTHLY'
          AND \(inEnvironment("x.environment"))
          AND x.changed_at >= \(from)::timestamptz AND x.changed_at < \(to)::timestamptz
        GROUP BY 3
        UNION ALL
        SELECT 'recovered', NULL, \(Self.utcDay("x.changed_at")), count(*)
        FROM chain_state_changes x JOIN scope s ON s.app_id = x.app_id
        WHERE x.state = 'active' AND x.previous_state IN ('billing_retry', 'grace_period')
          AND \(inEnvironment("x.environment"))
          AND x.changed_at >= \(from)::timestamptz AND x.changed_at < \(to)::timestamptz
        GROUP BY 3
        """
    }

    /// Each source is counted per UTC day first, on the day number `floor(epoch / 86400)` (float arithmetic), and
    /// only the few hundred day rows are truncated to the period: `date_trunc` with a time zone costs about a
    /// microsecond a row, which over millions of renewals was most of the report's time.
    func churnCountsFromLedger(from: Instant, to: Instant, granularity: String) -> PostgresQuery {
        """
        WITH \(apps),
        daily AS (
            SELECT 'started' AS metric, NULL::text AS reason, \(Self.utcDay("e.effective_at")) AS day, count(*) AS n
            FROM ledger_entries e JOIN scope s ON s.app_id = e.app_id
            JOIN products p ON p.app_id = e.app_id AND p.product_id = e.product_id AND p.product_type = 'auto_renewable'
            WHERE e.kind = 'grant' AND \(inEnvironment("e.environment"))
              AND e.effective_at >= \(from)::timestamptz AND e.effective_at < \(to)::timestamptz
            GROUP BY 3
            UNION ALL
            SELECT 'renewed', NULL, \(Self.utcDay("e.effective_at")), count(*)
            FROM ledger_entries e JOIN scope s ON s.app_id = e.app_id
            WHERE e.kind = 'extend' AND \(inEnvironment("e.environment"))
              AND e.effective_at >= \(from)::timestamptz AND e.effective_at < \(to)::timestamptz
            GROUP BY 3
            UNION ALL
            \(churnStateChanges(from: from, to: to))
            UNION ALL
            SELECT 'refunded', NULL, \(Self.utcDay("e.effective_at")), count(*)
            FROM ledger_entries e JOIN scope s ON s.app_id = e.app_id
            JOIN products p ON p.app_id = e.app_id AND p.product_id = e.product_id AND p.product_type = 'auto_renewable'
            WHERE e.kind = 'revoke' AND e.reason = 'refund' AND \(inEnvironment("e.environment"))
              AND e.effective_at >= \(from)::timestamptz AND e.effective_at < \(to)::timestamptz
            GROUP BY 3)
        SELECT metric, reason, date_trunc(\(granularity)::text, to_timestamp(day * 86400), 'UTC'), sum(n)::bigint
        FROM daily
        GROUP BY 1, 2, 3
        """
    }

    /// `churnCountsFromLedger` with the entries of the whole days [`firstDay`, `endDay`) (day numbers; `wholeFrom`,
    /// `wholeTo` their midnights) summed from `ledger_entry_day_counts`, and those of [`from`, `wholeFrom`) and
    /// [`wholeTo`, `to`) read from `ledger_entries`.
    func churnCountsFromDays(
        from: Instant, to: Instant, granularity: String, wholeFrom: Instant, wholeTo: Instant, firstDay: Int,
        endDay: Int
    ) -> PostgresQuery {
        """
        WITH \(apps),
        edges AS (
            SELECT e.app_id, e.kind, e.product_id, e.reason, e.effective_at
            FROM ledger_entries e JOIN scope s ON s.app_id = e.app_id
            WHERE e.kind IN ('grant', 'extend', 'revoke') AND \(inEnvironment("e.environment"))
              AND e.effective_at >= \(from)::timestamptz AND e.effective_at < \(wholeFrom)::timestamptz
            UNION ALL
            SELECT e.app_id, e.kind, e.product_id, e.reason, e.effective_at
            FROM ledger_entries e JOIN scope s ON s.app_id = e.app_id
            WHERE e.kind IN ('grant', 'extend', 'revoke') AND \(inEnvironment("e.environment"))
              AND e.effective_at >= \(wholeTo)::timestamptz AND e.effective_at < \(to)::timestamptz),
        daily AS (
            SELECT CASE e.kind WHEN 'grant' THEN 'started' WHEN 'extend' THEN 'renewed' ELSE 'refunded' END AS metric,
                   NULL::text AS reason, \(Self.utcDay("e.effective_at")) AS day, count(*) AS n
            FROM edges e LEFT JOIN products p ON p.app_id = e.app_id AND p.product_id = e.product_id
            WHERE e.kind = 'extend'
               OR (p.product_type = 'auto_renewable' AND (e.kind = 'grant' OR (e.kind = 'revoke' AND e.reason = 'refund')))
            GROUP BY 1, 3
            UNION ALL
            SELECT CASE k.kind WHEN 'grant' THEN 'started' WHEN 'extend' THEN 'renewed' ELSE 'refunded' END,
                   NULL, k.day, sum(k.entries)
            FROM ledger_entry_day_counts k JOIN scope s ON s.app_id = k.app_id
            LEFT JOIN products p ON p.app_id = k.app_id AND p.product_id = k.product_id
            WHERE k.kind IN ('grant', 'extend', 'revoke') AND k.day >= \(firstDay)::integer AND k.day < \(endDay)::integer
              AND \(inEnvironment("k.environment"))
              AND (k.kind = 'extend' OR p.product_type = 'auto_renewable')
            GROUP BY 1, 3
            UNION ALL
            \(churnStateChanges(from: from, to: to)))
        SELECT metric, reason, date_trunc(\(granularity)::text, to_timestamp(day * 86400), 'UTC'), sum(n)::bigint
        FROM daily
        GROUP BY 1, 2, 3
        """
    }

    /// The UTC day number (days since 1970-01-01) of a timestamptz column, in float arithmetic (`date_part`
    /// answers a double; `extract` a numeric, several times slower).
    static func utcDay(_ column: PostgresQuery) -> PostgresQuery {
        "floor(date_part('epoch', \(column)) / 86400)"
    }
}
