import PostgresLibPQ
import SubLedgerCore

/// The aggregates of the operational reports (schema step 20): `chain_report_spans`, per chain the spans of time
/// `active`, `active-over-time` and `summary --at` (in the past) count at an instant, computed by the SQL function
/// `chain_report_spans_of` from the chain's row, transactions and state changes; and `ledger_entry_day_counts`, the
/// ledger entries `churn` counts per UTC day, with `chain_entries_counted`, per chain the last entry counted.
enum OperationalReportRows {
    /// Recomputes the spans of `chains` as they are now and counts their entries not counted yet: called by
    /// `LedgerStore.apply` after it wrote the chains and their entries, in its transaction, with the chains locked.
    /// One statement per environment (an input has one).
    static func refresh(_ chains: [ChainKey], appID: Int64, on connection: PostgresConnection) throws {
        let byEnvironment = Dictionary(grouping: chains, by: \.environment.rawValue)
        for (environment, keys) in byEnvironment.sorted(by: { $0.key < $1.key }) {
            try connection.query(
                refreshStatement, [appID, environment, PostgresArrayText.strings(keys.map(\.originalTransactionID))])
        }
    }

    /// For chains `$3` (a text array) of app `$1` in environment `$2`: spans no longer computed are deleted,
    /// changed ones rewritten, unchanged ones left alone; entries after the chain's `counted_through` are added to
    /// the day counts (in key order, so concurrent applies lock shared rows in one order) and the mark moved.
    static let refreshStatement = PostgresStatement(
        """
        WITH fresh AS MATERIALIZED (
            SELECT f.* FROM unnest($3::text::text[]) AS c(chain)
            CROSS JOIN LATERAL chain_report_spans_of($1, $2, c.chain) f
        ),
        gone AS (
            DELETE FROM chain_report_spans g
            WHERE g.app_id = $1 AND g.environment = $2 AND g.original_transaction_id = ANY ($3::text::text[])
              AND NOT EXISTS (
                  SELECT 1 FROM fresh
                  WHERE fresh.original_transaction_id = g.original_transaction_id AND fresh.kind = g.kind
                    AND fresh.seq = g.seq)
        ),
        spans AS (
            INSERT INTO chain_report_spans SELECT * FROM fresh
            ON CONFLICT (app_id, environment, original_transaction_id, kind, seq) DO UPDATE SET
                starts_at = EXCLUDED.starts_at, ends_at = EXCLUDED.ends_at, product_id = EXCLUDED.product_id,
                detail = EXCLUDED.detail
            WHERE (chain_report_spans.starts_at, chain_report_spans.ends_at, chain_report_spans.product_id,
                   chain_report_spans.detail)
                IS DISTINCT FROM (EXCLUDED.starts_at, EXCLUDED.ends_at, EXCLUDED.product_id, EXCLUDED.detail)
        ),
        uncounted AS MATERIALIZED (
            SELECT e.entry_id, e.original_transaction_id, e.kind, e.product_id, e.reason, e.effective_at
            FROM unnest($3::text::text[]) AS c(chain)
            LEFT JOIN chain_entries_counted w
                ON w.app_id = $1 AND w.environment = $2 AND w.original_transaction_id = c.chain
            JOIN ledger_entries e
                ON e.app_id = $1 AND e.environment = $2 AND e.original_transaction_id = c.chain
               AND e.entry_id > coalesce(w.counted_through, 0)
        ),
        marks AS (
            INSERT INTO chain_entries_counted
            SELECT $1, $2, u.original_transaction_id, max(u.entry_id) FROM uncounted u GROUP BY u.original_transaction_id
            ON CONFLICT (app_id, environment, original_transaction_id) DO UPDATE SET
                counted_through = EXCLUDED.counted_through
        )
        INSERT INTO ledger_entry_day_counts AS k
        SELECT $1, u.kind, floor(date_part('epoch', u.effective_at) / 86400)::integer, $2,
               CASE WHEN u.kind = 'extend' THEN '' ELSE u.product_id END,
               (hashtext(u.original_transaction_id) & 15)::smallint, count(*)
        FROM uncounted u
        WHERE u.kind IN ('grant', 'extend') OR (u.kind = 'revoke' AND u.reason = 'refund')
        GROUP BY 2, 3, 5, 6
        ORDER BY 2, 3, 5, 6
        ON CONFLICT (app_id, kind, day, environment, product_id, shard) DO UPDATE SET entries = k.entries + EXCLUDED.entries
        """)
}
