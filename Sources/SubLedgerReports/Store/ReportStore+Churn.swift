import Foundation
import PostgresLibPQ

extension ReportStore {
    /// One churn metric counted in one period.
    struct ChurnCount {
        /// `started`, `renewed`, `expired` or `recovered` (see `ChurnReport.Counts`).
        var metric: String
        /// The expiration reason of `expired` (`unknown` when none was recorded); nil for the other metrics.
        var reason: String?
        /// The period's first instant (`date_trunc` in UTC).
        var periodStart: Date
        var count: Int
    }

    /// Over [`from`, `to`), per UTC day or month: `grant` ledger entries of auto-renewable products
    /// (`started`) and `extend` entries (`renewed`) by `effective_at`; state changes to `expired` from another
    /// state, by reason (`expired`), and from `billing_retry` or `grace_period` back to `active` (`recovered`),
    /// by `changed_at`.
    func churnCounts(from: Date, to: Date, granularity: ChurnReport.Granularity) throws -> [ChurnCount] {
        try scoped(Self.churnCountsSQL, [from, to, granularity.rawValue]).map { row in
            ChurnCount(
                metric: try row.decode(String.self, at: 0), reason: try row.decode(String?.self, at: 1),
                periodStart: try row.decode(Date.self, at: 2), count: try row.decode(Int.self, at: 3))
        }
    }

    static let churnCountsSQL = """
        WITH \(appsCTE)
        SELECT 'started', NULL::text, date_trunc($5::text, e.effective_at, 'UTC'), count(*)
        FROM ledger_entries e JOIN scope s ON s.app_id = e.app_id
        JOIN products p ON p.app_id = e.app_id AND p.product_id = e.product_id AND p.product_type = 'auto_renewable'
        WHERE e.kind = 'grant' AND \(environmentCondition("e.environment"))
          AND e.effective_at >= $3::timestamptz AND e.effective_at < $4::timestamptz
        GROUP BY 3
        UNION ALL
        SELECT 'renewed', NULL, date_trunc($5::text, e.effective_at, 'UTC'), count(*)
        FROM ledger_entries e JOIN scope s ON s.app_id = e.app_id
        WHERE e.kind = 'extend' AND \(environmentCondition("e.environment"))
          AND e.effective_at >= $3::timestamptz AND e.effective_at < $4::timestamptz
        GROUP BY 3
        UNION ALL
        SELECT 'expired', coalesce(x.expiration_reason, 'unknown'), date_trunc($5::text, x.changed_at, 'UTC'), count(*)
        FROM chain_state_changes x JOIN scope s ON s.app_id = x.app_id
        WHERE x.state = 'expired' AND x.previous_state IS DISTINCT FROM 'expired'
          AND \(environmentCondition("x.environment"))
          AND x.changed_at >= $3::timestamptz AND x.changed_at < $4::timestamptz
        GROUP BY 2, 3
        UNION ALL
        SELECT 'recovered', NULL, date_trunc($5::text, x.changed_at, 'UTC'), count(*)
        FROM chain_state_changes x JOIN scope s ON s.app_id = x.app_id
        WHERE x.state = 'active' AND x.previous_state IN ('billing_retry', 'grace_period')
          AND \(environmentCondition("x.environment"))
          AND x.changed_at >= $3::timestamptz AND x.changed_at < $4::timestamptz
        GROUP BY 3
        """
}
