import PostgresLibPQ
import SubLedgerCore

/// The `chain_cohort_facts` table (schema step 17): per chain, what the cohort reports (`trials`, `retention`)
/// read, computed from the chain's transactions by the SQL function `chain_cohort_facts_of`; and the per-cohort
/// totals summed from it that `retention` reads for whole months (`cohort_chain_totals`, `cohort_money_totals`,
/// schema step 21), kept by the same refreshes.
enum ChainCohortFactsRows {
    /// Recomputes the rows of `chains` from their transactions as they are now: called by `LedgerStore.apply`
    /// after it wrote them, in its transaction, with the chains locked. One statement per environment (an
    /// input has one); none when no chain changed.
    static func refresh(_ chains: [ChainKey], appID: Int64, on connection: PostgresConnection) throws {
        var batch = PostgresBatch()
        refresh(chains, appID: appID, into: &batch)
        _ = try connection.pipeline(batch)
    }

    /// `refresh`'s statements, appended to `batch`.
    static func refresh(_ chains: [ChainKey], appID: Int64, into batch: inout PostgresBatch) {
        let byEnvironment = Dictionary(grouping: chains, by: \.environment.rawValue)
        for (environment, keys) in byEnvironment.sorted(by: { $0.key < $1.key }) {
            batch.append(
                refreshStatement, [appID, environment, PostgresArrayText.strings(keys.map(\.originalTransactionID))])
        }
    }

    /// The rows of chains `$3` (a text array) of app `$1` in environment `$2`: written where the chain has a
    /// payment or an offer, deleted where it has neither, untouched where they did not change; the difference
    /// between the old and new rows added to the per-cohort totals (schema step 21, same call). The SQL function
    /// (schema step 18, replaced by step 21) runs `chain_cohort_facts_of` per chain with the plans its connection keeps: inlined into
    /// this statement, that query was planned afresh on every apply, at several times the cost of running it.
    static let refreshStatement = PostgresStatement(
        "SELECT chain_cohort_facts_refresh($1, $2, $3::text::text[])")

    /// Every chain of app `$1`: rows recomputed, and rows of chains with neither a payment nor an offer deleted;
    /// and the app's per-cohort totals (schema step 21) set to those of the recomputed rows, in the same statement:
    /// a total the recompute leaves out is set to zero, the others to the recomputed sums, each written in key order.
    static let refreshAppStatement = PostgresStatement(
        """
        WITH fresh AS MATERIALIZED (
            SELECT f.* FROM chains c
            CROSS JOIN LATERAL chain_cohort_facts_of(c.app_id, c.environment, c.original_transaction_id) f
            WHERE c.app_id = $1
        ),
        gone AS (
            DELETE FROM chain_cohort_facts g
            WHERE g.app_id = $1
              AND NOT EXISTS (
                  SELECT 1 FROM fresh
                  WHERE fresh.environment = g.environment AND fresh.original_transaction_id = g.original_transaction_id
                    AND (fresh.first_paid_at IS NOT NULL OR fresh.offer_started_at IS NOT NULL))
        ),
        chain_totals AS MATERIALIZED (
            SELECT $1::bigint AS app_id, date_trunc('month', f.first_paid_at AT TIME ZONE 'UTC')::date AS cohort,
                   f.environment, f.paid_mask, (hashtext(f.original_transaction_id) & 15)::smallint AS shard,
                   count(*) AS chains
            FROM fresh f WHERE f.first_paid_at IS NOT NULL
            GROUP BY 2, 3, 4, 5
        ),
        chain_totals_cleared AS (
            UPDATE cohort_chain_totals t SET chains = 0
            WHERE t.app_id = $1 AND t.chains <> 0
              AND NOT EXISTS (
                  SELECT 1 FROM chain_totals n
                  WHERE n.cohort = t.cohort AND n.environment = t.environment AND n.paid_mask = t.paid_mask
                    AND n.shard = t.shard)
        ),
        chain_totals_set AS (
            INSERT INTO cohort_chain_totals AS t (app_id, cohort, environment, paid_mask, shard, chains)
            SELECT * FROM chain_totals ORDER BY cohort, environment, paid_mask, shard
            ON CONFLICT (app_id, cohort, environment, paid_mask, shard) DO UPDATE SET chains = EXCLUDED.chains
            WHERE t.chains <> EXCLUDED.chains
        ),
        money_totals AS MATERIALIZED (
            SELECT $1::bigint AS app_id, date_trunc('month', f.first_paid_at AT TIME ZONE 'UTC')::date AS cohort,
                   f.environment, x.month, coalesce(x.currency, '') AS currency, x.day,
                   (hashtext(f.original_transaction_id) & 3)::smallint AS shard, sum(x.gross)::bigint AS gross,
                   sum(x.refunded)::bigint AS refunded, sum(x.estimated)::bigint AS estimated,
                   sum(x.unpriced)::bigint AS unpriced, sum(x.priced)::bigint AS priced
            FROM fresh f,
                 LATERAL unnest(f.money_months, f.money_currencies, f.money_days, f.money_gross, f.money_refunded,
                                f.money_estimated, f.money_unpriced, f.money_priced)
                     AS x(month, currency, day, gross, refunded, estimated, unpriced, priced)
            WHERE f.first_paid_at IS NOT NULL
            GROUP BY 2, 3, 4, 5, 6, 7
        ),
        money_totals_cleared AS (
            UPDATE cohort_money_totals t SET gross = 0, refunded = 0, estimated = 0, unpriced = 0, priced = 0
            WHERE t.app_id = $1 AND (t.gross, t.refunded, t.estimated, t.unpriced, t.priced) <> (0, 0, 0, 0, 0)
              AND NOT EXISTS (
                  SELECT 1 FROM money_totals n
                  WHERE n.cohort = t.cohort AND n.environment = t.environment AND n.month = t.month
                    AND n.currency = t.currency AND n.day = t.day AND n.shard = t.shard)
        ),
        money_totals_set AS (
            INSERT INTO cohort_money_totals AS t
                (app_id, cohort, environment, month, currency, day, shard, gross, refunded, estimated, unpriced, priced)
            SELECT * FROM money_totals ORDER BY cohort, environment, month, currency, day, shard
            ON CONFLICT (app_id, cohort, environment, month, currency, day, shard) DO UPDATE SET
                gross = EXCLUDED.gross, refunded = EXCLUDED.refunded, estimated = EXCLUDED.estimated,
                unpriced = EXCLUDED.unpriced, priced = EXCLUDED.priced
            WHERE (t.gross, t.refunded, t.estimated, t.unpriced, t.priced)
                <> (EXCLUDED.gross, EXCLUDED.refunded, EXCLUDED.estimated, EXCLUDED.unpriced, EXCLUDED.priced)
        )
        INSERT INTO chain_cohort_facts
        SELECT * FROM fresh WHERE first_paid_at IS NOT NULL OR offer_started_at IS NOT NULL
        \(upsertTail)
        """)

    private static let upsertTail = """
        ON CONFLICT (app_id, environment, original_transaction_id) DO UPDATE SET
            first_paid_at = EXCLUDED.first_paid_at, paid_mask = EXCLUDED.paid_mask,
            money_months = EXCLUDED.money_months, money_currencies = EXCLUDED.money_currencies,
            money_days = EXCLUDED.money_days, money_gross = EXCLUDED.money_gross,
            money_refunded = EXCLUDED.money_refunded, money_estimated = EXCLUDED.money_estimated,
            money_unpriced = EXCLUDED.money_unpriced, money_priced = EXCLUDED.money_priced,
            offer_started_at = EXCLUDED.offer_started_at, offer_product_id = EXCLUDED.offer_product_id,
            offer_is_trial = EXCLUDED.offer_is_trial, offer_converted = EXCLUDED.offer_converted,
            offer_running_until = EXCLUDED.offer_running_until
        """
}

extension LedgerStore {
    /// Recomputes the cohort facts of every chain of `app` (schema step 17), in one transaction. The amounts of
    /// transactions without Apple's price come from `catalog_prices`, and only auto-renewable products count:
    /// whatever writes catalog price points or changes a product's type must call this for the app afterwards
    /// (an apply keeps the chains it changes up to date by itself).
    public func refreshCohortFacts(app: StoredApp) async throws {
        try await pool.transaction { connection in
            try ChainAggregates.refreshApp(app.appID, on: connection)
        }
    }
}
