import PostgresLibPQ
import SubLedgerCore

/// The money aggregates (schema step 19): `chain_money_facts`, per transaction of a chain what the `revenue` and
/// `mrr` reports read (computed by the SQL function `chain_money_facts_of`), `chain_mrr_moves`, per chain and
/// month how its MRR moved, and `chain_mrr_steps`, per chain each instant its MRR changes (both computed from
/// those rows, by `chain_mrr_moves_from` and `chain_mrr_steps_from`). All three are rewritten together, and the
/// per-day totals `revenue_day_totals` (schema step 22) changed by the difference between the chains' old and new
/// `chain_money_facts` rows, in the same statement.
enum ChainMoneyFactsRows {
    /// Recomputes the three tables' rows of `chains` from their transactions as they are now, appended to `batch`:
    /// called by `ReportProjector` with the chains locked. One statement per environment.
    static func refresh(_ chains: [ChainKey], appID: Int64, into batch: inout PostgresBatch) {
        let byEnvironment = Dictionary(grouping: chains, by: \.environment.rawValue)
        for (environment, keys) in byEnvironment.sorted(by: { $0.key < $1.key }) {
            batch.append(refresh(appID: appID, environment: environment, chains: keys.map(\.originalTransactionID)))
        }
    }

    /// The rows of `chains` of app `appID` in `environment`: rows that changed are written, rows no longer computed
    /// deleted, unchanged rows left alone (no dead tuples for a chain that only renewed).
    static func refresh(appID: Int64, environment: String, chains: [String]) -> PostgresQuery {
        """
        WITH fresh AS MATERIALIZED (
            SELECT f.* FROM unnest(\(PostgresArrayText.strings(chains))::text::text[]) AS c(chain)
            CROSS JOIN LATERAL chain_money_facts_of(\(appID), \(environment), c.chain) f
        ),
        \(referring: movesAndWrites)
        """
    }

    /// The rest of the statement after `fresh` (the chains' new `chain_money_facts` rows): their MRR moves, and
    /// the writes of the three tables for the chains `chainCondition` selects (on the alias `g`). `revenue_day_totals`
    /// changes by the new rows counted once and the old ones (`old_facts`: every part of a statement reads the
    /// snapshot it started with, before its own writes) taken away, per key of the totals; keys whose count does
    /// not change are not written, the others in key order, so that concurrent projections that share rows lock them
    /// in the same order.
    private static let movesAndWrites: PostgresQuery = """
        per_chain AS MATERIALIZED (
            SELECT array_agg(ROW(f.*)::chain_money_facts ORDER BY f.transaction_id) AS facts FROM fresh f
            GROUP BY f.app_id, f.environment, f.original_transaction_id
        ),
        moves AS MATERIALIZED (
            SELECT m.* FROM per_chain c CROSS JOIN LATERAL chain_mrr_moves_from(c.facts) m
        ),
        steps AS MATERIALIZED (
            SELECT m.* FROM per_chain c CROSS JOIN LATERAL chain_mrr_steps_from(c.facts) m
        ),
        steps_gone AS (
            DELETE FROM chain_mrr_steps g
            WHERE g.original_transaction_id = ANY ($1::text::text[]) AND g.app_id = $2 AND g.environment = $3
              AND NOT EXISTS (
                  SELECT 1 FROM steps
                  WHERE steps.environment = g.environment AND steps.original_transaction_id = g.original_transaction_id
                    AND steps.at_ms = g.at_ms AND steps.currency = g.currency)
        ),
        steps_written AS (
            INSERT INTO chain_mrr_steps SELECT * FROM steps
            ON CONFLICT (app_id, environment, original_transaction_id, at_ms, currency) DO UPDATE SET
                mrr_delta = EXCLUDED.mrr_delta, subscribers_delta = EXCLUDED.subscribers_delta,
                estimated_delta = EXCLUDED.estimated_delta, first_paid_ms = EXCLUDED.first_paid_ms,
                committed_mrr_delta = EXCLUDED.committed_mrr_delta,
                committed_subscribers_delta = EXCLUDED.committed_subscribers_delta
            WHERE (chain_mrr_steps.*) IS DISTINCT FROM (EXCLUDED.*)
        ),
        old_facts AS MATERIALIZED (
            SELECT g.* FROM chain_money_facts g WHERE g.original_transaction_id = ANY ($1::text::text[]) AND g.app_id = $2 AND g.environment = $3
        ),
        revenue_changes AS (
            SELECT x.app_id, d.day, x.environment, d.kind, d.bought_day, x.product_id, x.storefront, x.currency,
                d.amount_milli, x.second_year, d.estimated, (hashtext(x.original_transaction_id) & 15)::smallint AS shard,
                sum(x.sign)::bigint AS sales
            FROM (
                SELECT 1 AS sign, f.* FROM fresh f
                UNION ALL
                SELECT -1, o.* FROM old_facts o
            ) x
            CROSS JOIN LATERAL revenue_day_rows_of(
                x.purchase_ms, x.refund_ms, x.refund_milli, x.credit_ms, x.credit_milli, x.amount_milli, x.estimated) d
            GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12
            HAVING sum(x.sign) <> 0
        ),
        revenue_written AS (
            INSERT INTO revenue_day_totals AS t
            SELECT * FROM revenue_changes
            ORDER BY app_id, day, environment, kind, bought_day, product_id, storefront, currency, amount_milli,
                second_year, estimated, shard
            ON CONFLICT (app_id, day, environment, kind, bought_day, product_id, storefront, currency, amount_milli,
                second_year, estimated, shard)
            DO UPDATE SET sales = t.sales + EXCLUDED.sales
        ),
        facts_gone AS (
            DELETE FROM chain_money_facts g
            WHERE g.original_transaction_id = ANY ($1::text::text[]) AND g.app_id = $2 AND g.environment = $3
              AND NOT EXISTS (
                  SELECT 1 FROM fresh
                  WHERE fresh.environment = g.environment AND fresh.original_transaction_id = g.original_transaction_id
                    AND fresh.transaction_id = g.transaction_id)
        ),
        facts_written AS (
            INSERT INTO chain_money_facts SELECT * FROM fresh
            ON CONFLICT (app_id, environment, original_transaction_id, transaction_id) DO UPDATE SET
                product_id = EXCLUDED.product_id, purchase_ms = EXCLUDED.purchase_ms, expires_ms = EXCLUDED.expires_ms,
                served_until_ms = EXCLUDED.served_until_ms, refund_ms = EXCLUDED.refund_ms, credit_ms = EXCLUDED.credit_ms,
                credit_milli = EXCLUDED.credit_milli, amount_milli = EXCLUDED.amount_milli, currency = EXCLUDED.currency,
                storefront = EXCLUDED.storefront, estimated = EXCLUDED.estimated, second_year = EXCLUDED.second_year,
                monthly_milli = EXCLUDED.monthly_milli, first_paid_ms = EXCLUDED.first_paid_ms,
                refund_milli = EXCLUDED.refund_milli, committed = EXCLUDED.committed
            WHERE (chain_money_facts.*) IS DISTINCT FROM (EXCLUDED.*)
        ),
        moves_gone AS (
            DELETE FROM chain_mrr_moves g
            WHERE g.original_transaction_id = ANY ($1::text::text[]) AND g.app_id = $2 AND g.environment = $3
              AND NOT EXISTS (
                  SELECT 1 FROM moves
                  WHERE moves.environment = g.environment AND moves.original_transaction_id = g.original_transaction_id
                    AND moves.month = g.month AND moves.currency = g.currency)
        )
        INSERT INTO chain_mrr_moves SELECT * FROM moves
        ON CONFLICT (app_id, environment, original_transaction_id, month, currency) DO UPDATE SET
            mrr_delta = EXCLUDED.mrr_delta, subscribers_delta = EXCLUDED.subscribers_delta,
            estimated_delta = EXCLUDED.estimated_delta, new_milli = EXCLUDED.new_milli,
            expansion_milli = EXCLUDED.expansion_milli, contraction_milli = EXCLUDED.contraction_milli,
            churned_milli = EXCLUDED.churned_milli, reactivation_milli = EXCLUDED.reactivation_milli,
            committed_mrr_delta = EXCLUDED.committed_mrr_delta,
            committed_subscribers_delta = EXCLUDED.committed_subscribers_delta
        WHERE (chain_mrr_moves.*) IS DISTINCT FROM (EXCLUDED.*)
        """
}
