import PostgresLibPQ
import SubLedgerCore

extension ReportStore {
    /// Subscription periods starting or ending on one day of a range.
    struct SubscriptionEdgeCount {
        enum Edge: String {
            case start
            case end
        }

        var edge: Edge
        /// The day's index in the range: the first sample at or after the edge.
        var day: Int
        var count: Int
    }

    /// Owned chains that grant access at `instant` (effective state `active` or `grace_period`, see
    /// `EffectiveState`), counted per product and split trial / intro / paid by the flags of the chain's
    /// latest transaction purchased at or before `instant` (greatest purchase date, then transaction id).
    /// Ordered by bundle id and product.
    /// From `.aggregate` (the default), the `granting` rows of `chain_report_spans` around `instant`; from `.ledger`,
    /// the reference query over `chains` and `transactions`.
    func grantingChainsByOffer(at instant: Instant, source: AggregateSource = .aggregate) throws -> [ActiveReport.Row] {
        let query =
            source == .aggregate
            ? grantingChainsByOfferFromSpans(at: instant) : grantingChainsByOfferFromLedger(at: instant)
        return try run(query).map { row in
            ActiveReport.Row(
                bundleID: try row.decode(String.self, at: 0), productID: try row.decode(String.self, at: 1),
                trial: try row.decode(Int.self, at: 2), intro: try row.decode(Int.self, at: 3),
                paid: try row.decode(Int.self, at: 4), total: try row.decode(Int.self, at: 5))
        }
    }

    /// Subscription transactions in force for some time between `firstSample` and `now`
    /// (`purchase_date <= t < least(expires_date, revocation_date)`), their starts and ends counted per day
    /// of the range that begins at the midnight `firstDay`.
    ///
    /// A start or end at `x` counts on the first sample at or after it, day `ceil((x - firstDay) / 1 day) - 1`;
    /// starts before the range count on day 0 and ends after `now` are left out. One pass over the
    /// transactions that end after the first sample (an index-only range scan on `expires_date`); the day numbers
    /// in float arithmetic (`date_part`; `extract` answers a numeric, about 20 % slower over millions of rows).
    ///
    /// The query counts the transactions per (start day, end day) pair in one aggregate (at most the range's
    /// days squared rows), and the pairs are split into starts and ends here: one pass, with no intermediate
    /// result written and read twice.
    ///
    /// From `.aggregate` (the default) the same counts come from the `in_force` rows of `chain_report_spans`: a chain's
    /// transactions merged where they touch (the counts at every sample are the same, see docs/explanation/reports.md).
    func subscriptionEdgeCounts(
        firstDay: Instant, firstSample: Instant, now: Instant, source: AggregateSource = .aggregate
    ) throws -> [SubscriptionEdgeCount] {
        var edges: [SubscriptionEdgeCount] = []
        let query =
            source == .aggregate
            ? edgeCountsFromSpans(firstDay: firstDay, firstSample: firstSample, now: now)
            : edgeCountsFromTransactions(firstDay: firstDay, firstSample: firstSample, now: now)
        for row in try run(query) {
            let count = try row.decode(Int.self, at: 2)
            edges.append(SubscriptionEdgeCount(edge: .start, day: try row.decode(Int.self, at: 0), count: count))
            if let end = try row.decode(Int?.self, at: 1) {
                edges.append(SubscriptionEdgeCount(edge: .end, day: end, count: count))
            }
        }
        return edges
    }

    /// The granting chains come from the `chains` index alone; the offer split from the few transactions bought
    /// under an offer (a partial index), each kept only if no later transaction of its chain was purchased by
    /// the instant (an index-only probe). Reading every granting chain's latest transaction instead was a
    /// probe and a payload per chain, seconds on a million chains. The flags are step 14's columns, which hold
    /// what the payload's `isTrialPeriod` / `isInIntroOfferPeriod` say.
    func grantingChainsByOfferFromLedger(at instant: Instant) -> PostgresQuery {
        """
        WITH \(apps),
        granting AS (
            SELECT c.app_id, c.environment, c.original_transaction_id, c.product_id
            FROM chains c JOIN scope s ON s.app_id = c.app_id
            WHERE \(inEnvironment("c.environment")) AND c.owner_account_id IS NOT NULL
              AND c.state IN ('active', 'grace_period')
              AND \(EffectiveState.sql(at: "\(instant)::timestamptz")) IN ('active', 'grace_period')),
        offers AS (
            SELECT t.app_id, t.environment, t.original_transaction_id, t.is_trial_period AS trial,
                   t.is_in_intro_offer_period AS intro
            FROM transactions t JOIN scope s ON s.app_id = t.app_id
            WHERE (t.is_trial_period OR t.is_in_intro_offer_period) AND t.purchase_date <= \(instant)::timestamptz
              AND \(inEnvironment("t.environment"))
              AND NOT EXISTS (
                  SELECT 1 FROM transactions x
                  WHERE x.app_id = t.app_id AND x.environment = t.environment
                    AND x.original_transaction_id = t.original_transaction_id
                    AND x.purchase_date >= t.purchase_date AND x.purchase_date <= \(instant)::timestamptz
                    AND (x.purchase_date > t.purchase_date OR x.transaction_id > t.transaction_id))),
        counted AS (
            SELECT g.app_id, g.product_id,
                   count(*) FILTER (WHERE o.trial) AS trial,
                   count(*) FILTER (WHERE o.intro AND NOT o.trial) AS intro,
                   count(*) FILTER (WHERE o.trial IS NOT TRUE AND o.intro IS NOT TRUE) AS paid,
                   count(*) AS total
            FROM granting g
            LEFT JOIN offers o ON o.app_id = g.app_id AND o.environment = g.environment
                              AND o.original_transaction_id = g.original_transaction_id
            GROUP BY 1, 2)
        SELECT s.bundle_id, k.product_id, k.trial, k.intro, k.paid, k.total
        FROM counted k JOIN scope s ON s.app_id = k.app_id
        ORDER BY 1, 2
        """
    }

    /// Per transaction in force: its start day (from the midnight `firstDay`) and its end day (NULL when it ends
    /// after `now`).
    func edgeCountsFromTransactions(firstDay: Instant, firstSample: Instant, now: Instant) -> PostgresQuery {
        """
        WITH \(apps),
        spans AS (
            SELECT t.purchase_date AS starts_at,
                   least(t.expires_date, coalesce(t.revocation_date, 'infinity')) AS ends_at
            FROM transactions t JOIN scope s ON s.app_id = t.app_id
            WHERE t.expires_date > \(firstSample)::timestamptz AND t.purchase_date <= \(now)::timestamptz
              AND \(inEnvironment("t.environment")))
        SELECT greatest(ceil(date_part('epoch', starts_at - \(firstDay)::timestamptz) / 86400) - 1, 0)::bigint,
               CASE WHEN ends_at <= \(now)::timestamptz
                    THEN (ceil(date_part('epoch', ends_at - \(firstDay)::timestamptz) / 86400) - 1)::bigint END,
               count(*)
        FROM spans
        WHERE ends_at > \(firstSample)::timestamptz AND ends_at > starts_at
        GROUP BY 1, 2
        """
    }

    /// `active` from the aggregate: the owned chains' granting spans that contain the instant (an index-only range
    /// scan of `index_chain_report_spans_granting` over the spans ending after it), counted per product and offer.
    func grantingChainsByOfferFromSpans(at instant: Instant) -> PostgresQuery {
        """
        WITH \(apps),
        counted AS (
            SELECT r.app_id, r.product_id,
                   count(*) FILTER (WHERE r.detail = 'trial') AS trial,
                   count(*) FILTER (WHERE r.detail = 'intro') AS intro,
                   count(*) FILTER (WHERE r.detail = 'paid') AS paid,
                   count(*) AS total
            FROM chain_report_spans r JOIN scope s ON s.app_id = r.app_id
            WHERE r.kind = 'granting' AND r.ends_at > \(instant)::timestamptz AND r.starts_at <= \(instant)::timestamptz
              AND \(inEnvironment("r.environment"))
            GROUP BY 1, 2)
        SELECT s.bundle_id, k.product_id, k.trial, k.intro, k.paid, k.total
        FROM counted k JOIN scope s ON s.app_id = k.app_id
        ORDER BY 1, 2
        """
    }

    /// `edgeCountsFromTransactions` on the chains' `in_force` spans instead of their transactions.
    func edgeCountsFromSpans(firstDay: Instant, firstSample: Instant, now: Instant) -> PostgresQuery {
        """
        WITH \(apps),
        spans AS (
            SELECT r.starts_at, r.ends_at
            FROM chain_report_spans r JOIN scope s ON s.app_id = r.app_id
            WHERE r.kind = 'in_force' AND r.ends_at > \(firstSample)::timestamptz AND r.starts_at <= \(now)::timestamptz
              AND \(inEnvironment("r.environment")))
        SELECT greatest(ceil(date_part('epoch', starts_at - \(firstDay)::timestamptz) / 86400) - 1, 0)::bigint,
               CASE WHEN ends_at <= \(now)::timestamptz
                    THEN (ceil(date_part('epoch', ends_at - \(firstDay)::timestamptz) / 86400) - 1)::bigint END,
               count(*)
        FROM spans
        WHERE ends_at > \(firstSample)::timestamptz AND ends_at > starts_at
        GROUP BY 1, 2
        """
    }
}
