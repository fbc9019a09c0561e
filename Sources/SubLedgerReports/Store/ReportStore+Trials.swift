import PostgresLibPQ
import SubLedgerCore

extension ReportStore {
    /// Offer starts of one cohort period, app, product and offer kind, with their outcome.
    struct TrialCount {
        var cohort: Instant
        var bundleID: String
        var productID: String
        /// `trial` or `intro`.
        var offer: String
        var starts: Int
        var converted: Int
        var pending: Int
    }

    /// The chains whose first offer transaction (a free trial or a paid introductory offer) was bought in
    /// [`from`, `to`), by the UTC `week` or `month` of that purchase, its app and product and the offer's kind:
    /// how many converted (a later payment that was not refunded, and for an intro offer not itself in the offer)
    /// and how many are still in the offer at `now` without having converted.
    /// Read from `chain_cohort_facts` (schema step 17), or, for `.ledger`, computed from the transactions.
    func trialCounts(from: Instant, to: Instant, granularity: String, now: Instant, source: CohortSource = .facts)
        throws
        -> [TrialCount]
    {
        let query =
            source == .ledger
            ? trialCountsFromLedger(from: from, to: to, granularity: granularity, now: now)
            : trialCountsFromFacts(from: from, to: to, granularity: granularity, now: now)
        return try run(query).map { row in
            TrialCount(
                cohort: try row.instant(at: 0), bundleID: try row.decode(String.self, at: 1),
                productID: try row.decode(String.self, at: 2), offer: try row.decode(String.self, at: 3),
                starts: try row.decode(Int.self, at: 4), converted: try row.decode(Int.self, at: 5),
                pending: try row.decode(Int.self, at: 6))
        }
    }

    /// Each chain's first offer, its conversion and until when an offer runs are kept in `chain_cohort_facts`;
    /// the starts in range come from its partial index on `offer_started_at`. The same answer as
    /// `trialCountsFromLedger` (a property test holds them to it).
    func trialCountsFromFacts(from: Instant, to: Instant, granularity: String, now: Instant) -> PostgresQuery {
        """
        WITH \(apps)
        SELECT date_trunc(\(granularity)::text, f.offer_started_at, 'UTC'), s.bundle_id, f.offer_product_id,
               CASE WHEN f.offer_is_trial THEN 'trial' ELSE 'intro' END,
               count(*), count(*) FILTER (WHERE f.offer_converted),
               count(*) FILTER (WHERE f.offer_running_until > \(now)::timestamptz AND NOT f.offer_converted)
        FROM chain_cohort_facts f JOIN scope s ON s.app_id = f.app_id
        WHERE \(inEnvironment("f.environment"))
          AND f.offer_started_at >= \(from)::timestamptz AND f.offer_started_at < \(to)::timestamptz
        GROUP BY 1, 2, 3, 4
        ORDER BY 1, 4 DESC, 2, 3
        """
    }

    /// The reference computation from the ledger's transactions, which the tests hold the aggregate to.
    /// Offer starts are the offer transactions bought in the range; each
    /// start's earlier offers, conversion and running offer are index probes on its chain; `outcomes` is materialized
    /// so that each probe runs once per start (inlined, the two counts that read `converted` would each run it).
    func trialCountsFromLedger(from: Instant, to: Instant, granularity: String, now: Instant) -> PostgresQuery {
        """
        WITH \(apps),
        starts AS (
            SELECT t.app_id, s.bundle_id, t.environment, t.original_transaction_id, t.product_id, t.purchase_date,
                   \(CohortSQL.isTrial("t")) AS is_trial
            FROM transactions t JOIN scope s ON s.app_id = t.app_id
            JOIN products p ON p.app_id = t.app_id AND p.product_id = t.product_id AND p.product_type = 'auto_renewable'
            WHERE \(CohortSQL.isOffer("t")) AND \(inEnvironment("t.environment"))
              AND t.purchase_date >= \(from)::timestamptz AND t.purchase_date < \(to)::timestamptz
              AND NOT EXISTS (
                  SELECT 1 FROM transactions e
                  WHERE e.app_id = t.app_id AND e.environment = t.environment
                    AND e.original_transaction_id = t.original_transaction_id
                    AND (e.purchase_date < t.purchase_date OR (e.purchase_date = t.purchase_date AND e.transaction_id < t.transaction_id))
                    AND \(CohortSQL.isOffer("e")))
        ),
        outcomes AS MATERIALIZED (
            SELECT st.*,
                   EXISTS (
                       SELECT 1 FROM transactions x
                       WHERE x.app_id = st.app_id AND x.environment = st.environment
                         AND x.original_transaction_id = st.original_transaction_id AND x.purchase_date > st.purchase_date
                         AND \(CohortSQL.isPaid("x")) AND NOT \(CohortSQL.isRefunded("x"))
                         AND (st.is_trial OR NOT \(CohortSQL.isIntro("x")))) AS converted,
                   EXISTS (
                       SELECT 1 FROM transactions x
                       WHERE x.app_id = st.app_id AND x.environment = st.environment
                         AND x.original_transaction_id = st.original_transaction_id AND x.purchase_date >= st.purchase_date
                         AND \(CohortSQL.isOffer("x")) AND x.revocation_date IS NULL
                         AND x.expires_date > \(now)::timestamptz) AS running
            FROM starts st
        )
        SELECT date_trunc(\(granularity)::text, purchase_date, 'UTC'), bundle_id, product_id,
               CASE WHEN is_trial THEN 'trial' ELSE 'intro' END,
               count(*), count(*) FILTER (WHERE converted), count(*) FILTER (WHERE running AND NOT converted)
        FROM outcomes
        GROUP BY 1, 2, 3, 4
        ORDER BY 1, 4 DESC, 2, 3
        """
    }
}
