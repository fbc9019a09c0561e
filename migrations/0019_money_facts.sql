-- step 19: money reports: per-transaction revenue facts and per-chain MRR movement per month, kept by every apply
-- Per transaction of a chain, what the `revenue` and `mrr` reports need (docs/revenue.md, "Speed"), computed
-- from the chain's whole history by `chain_money_facts_of` with the rules of SubLedgerCore's `RevenueSale`,
-- `PaidServiceDays`, `RevenueTransaction.markingUpgrades` and `MonthlyRecurring`: instants in milliseconds since
-- 1970 (as the reports compute), the amount as the `transaction_amounts` view prices it (Apple's, else the
-- catalog's: `estimated`), whether a year of paid service in the chain preceded it (`second_year`: the 15 %
-- commission), the end of the period it served (cut at an upgrade), the prorated credit of an upgrade and its
-- moment, its price normalized to a month and the chain's first paid purchase. What changes with time or with
-- small tables (the Small Business Program, tax rates, exchange rates) is applied by the reports when they run.
-- Written by `LedgerStore.apply` for the chains it changes, in its transaction (`ChainMoneyFactsRows`);
-- recomputed for a whole app when catalog prices change.
CREATE TABLE chain_money_facts (
    app_id                  bigint NOT NULL,
    environment             text NOT NULL,
    original_transaction_id text NOT NULL,
    transaction_id          text NOT NULL,
    product_id              text NOT NULL,
    purchase_ms             bigint NOT NULL,
    expires_ms              bigint,
    served_until_ms         bigint,
    refund_ms               bigint,
    credit_ms               bigint,
    credit_milli            bigint,
    amount_milli            bigint,
    currency                text,
    storefront              text,
    estimated               boolean NOT NULL,
    second_year             boolean NOT NULL,
    monthly_milli           bigint,
    first_paid_ms           bigint,
    PRIMARY KEY (app_id, environment, original_transaction_id, transaction_id)
);
COMMENT ON TABLE chain_money_facts IS 'citus: distributed by original_transaction_id';
-- revenue: the sales of a range, index-only.
CREATE INDEX index_chain_money_facts_on_app_id_and_purchase_ms
    ON chain_money_facts (app_id, purchase_ms)
    INCLUDE (environment, product_id, storefront, currency, amount_milli, second_year, estimated);
-- revenue: refunds and upgrade credits of a range (few).
CREATE INDEX index_chain_money_facts_on_app_id_and_refund_ms
    ON chain_money_facts (app_id, refund_ms) WHERE refund_ms IS NOT NULL AND amount_milli > 0;
CREATE INDEX index_chain_money_facts_on_app_id_and_credit_ms
    ON chain_money_facts (app_id, credit_ms) WHERE credit_ms IS NOT NULL;
-- mrr at an instant that is not a month end (the current month): the periods running past an instant.
CREATE INDEX index_chain_money_facts_on_app_id_and_served_until_ms
    ON chain_money_facts (app_id, served_until_ms)
    INCLUDE (environment, purchase_ms, refund_ms, monthly_milli, currency, estimated, first_paid_ms)
    WHERE served_until_ms IS NOT NULL;

-- One chain's rows of `chain_money_facts`, from the `transaction_amounts` view (the reference the reports read
-- before this step), in purchase order (purchase instant, then transaction id).
CREATE FUNCTION chain_money_facts_of(p_app_id bigint, p_environment text, p_chain text)
RETURNS SETOF chain_money_facts LANGUAGE sql STABLE AS $$
SELECT p_app_id, p_environment, p_chain, h.transaction_id, h.product_id, h.purchase_ms, h.expires_ms, h.served_until_ms,
       h.refund_ms,
       CASE WHEN h.credits THEN h.upgrade_ms END,
       CASE WHEN h.credits THEN
           (div(h.amount::numeric * (h.expires_ms - h.upgrade_ms), h.expires_ms - h.purchase_ms)
            + CASE WHEN mod(h.amount::numeric * (h.expires_ms - h.upgrade_ms), h.expires_ms - h.purchase_ms) * 2
                        >= h.expires_ms - h.purchase_ms THEN 1 ELSE 0 END)::bigint END,
       h.amount, h.currency, h.storefront, h.estimated,
       coalesce(sum(h.paid_ms) OVER (PARTITION BY h.segment ORDER BY h.purchase_ms, h.transaction_id COLLATE "C"
                                     ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) >= 365::bigint * 86400000,
       CASE WHEN h.amount IS NULL OR h.expires_ms IS NULL THEN NULL
            WHEN (h.expires_ms - h.purchase_ms) / 86400000 BETWEEN 6 AND 8 THEN (h.amount * 52 + 6) / 12
            ELSE (h.amount + greatest(1, (h.expires_ms - h.purchase_ms + 1314873000) / 2629746000) / 2)
                 / greatest(1, (h.expires_ms - h.purchase_ms + 1314873000) / 2629746000) END,
       h.first_paid_ms
FROM (
    SELECT g.*, count(*) FILTER (WHERE g.resets) OVER (ORDER BY g.purchase_ms, g.transaction_id COLLATE "C") AS segment
    FROM (
        SELECT s.*,
               (s.counts AND s.last_paid_end IS NOT NULL AND s.purchase_ms - s.last_paid_end > 60::bigint * 86400000) AS resets
        FROM (
            SELECT u.*,
                   CASE WHEN u.counts AND u.served_until_ms IS NOT NULL THEN greatest(0, u.served_until_ms - u.purchase_ms) END AS paid_ms,
                   max(CASE WHEN u.counts THEN u.served_until_ms END) OVER (
                       ORDER BY u.purchase_ms, u.transaction_id COLLATE "C" ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS last_paid_end,
                   (u.amount > 0 AND u.refund_ms IS NULL AND u.upgrade_ms IS NOT NULL) AS credits
            FROM (
                SELECT t.*,
                       CASE WHEN t.expires_ms IS NULL THEN NULL WHEN t.upgrade_ms IS NOT NULL THEN t.upgrade_ms ELSE t.expires_ms END AS served_until_ms,
                       (coalesce(t.amount, 0) > 0 AND t.refund_ms IS NULL) AS counts
                FROM (
                    SELECT r.*,
                           CASE WHEN r.refund_ms IS NULL AND r.expires_ms IS NOT NULL AND r.next_ms > r.purchase_ms
                                     AND r.next_ms < r.expires_ms THEN r.next_ms END AS upgrade_ms,
                           min(r.purchase_ms) FILTER (WHERE r.amount > 0) OVER () AS first_paid_ms
                    FROM (
                        SELECT a.transaction_id, a.product_id,
                               (extract(epoch FROM a.purchase_date) * 1000)::bigint AS purchase_ms,
                               (extract(epoch FROM a.expires_date) * 1000)::bigint AS expires_ms,
                               (extract(epoch FROM a.revocation_date) * 1000)::bigint AS refund_ms,
                               a.amount_milliunits AS amount, a.currency, a.storefront, coalesce(a.estimated, false) AS estimated,
                               (extract(epoch FROM lead(a.purchase_date) OVER (
                                   ORDER BY a.purchase_date, a.transaction_id COLLATE "C")) * 1000)::bigint AS next_ms
                        FROM transaction_amounts a
                        WHERE a.app_id = p_app_id AND a.environment = p_environment AND a.original_transaction_id = p_chain
                    ) r
                ) t
            ) u
        ) s
    ) g
) h
$$;

-- Per chain, month (UTC; MRR is measured at the month's last millisecond) and currency, how the chain's MRR
-- moved since the previous month's end, by `MRRSeries`' rules: the change of its MRR, of the subscribers it
-- counts as (1 while it pays more than 0), of the estimated subscribers (priced from the catalog), and the
-- movement split into new, expansion, contraction, churned and reactivation. Only months where something
-- changed have a row, so a report sums the rows up to its months' ends: MRR at a month end is the sum of the
-- changes before it. Written with `chain_money_facts`, from its rows (`chain_mrr_moves_from`).
CREATE TABLE chain_mrr_moves (
    app_id                  bigint NOT NULL,
    environment             text NOT NULL,
    original_transaction_id text NOT NULL,
    month                   date NOT NULL,
    currency                text NOT NULL,
    mrr_delta               bigint NOT NULL,
    subscribers_delta       integer NOT NULL,
    estimated_delta         integer NOT NULL,
    new_milli               bigint NOT NULL,
    expansion_milli         bigint NOT NULL,
    contraction_milli       bigint NOT NULL,
    churned_milli           bigint NOT NULL,
    reactivation_milli      bigint NOT NULL,
    PRIMARY KEY (app_id, environment, original_transaction_id, month, currency)
);
COMMENT ON TABLE chain_mrr_moves IS 'citus: distributed by original_transaction_id';
CREATE INDEX index_chain_mrr_moves_on_app_id_and_month
    ON chain_mrr_moves (app_id, month)
    INCLUDE (environment, currency, mrr_delta, subscribers_delta, estimated_delta, new_milli, expansion_milli,
             contraction_milli, churned_milli, reactivation_milli);

-- One subscriber's move between two instants (MRRSeries.compute and MRRMovement.record): its MRR before
-- (`b_…`, NULL: none) and after (`n_…`), whether it paid before the earlier instant. One row per currency touched.
CREATE FUNCTION mrr_move_rows(b_amount bigint, b_currency text, b_estimated boolean,
                              n_amount bigint, n_currency text, n_estimated boolean, paid_before boolean)
RETURNS TABLE (currency text, mrr_delta bigint, subscribers_delta integer, estimated_delta integer, new_milli bigint,
               expansion_milli bigint, contraction_milli bigint, churned_milli bigint, reactivation_milli bigint)
LANGUAGE sql IMMUTABLE AS $$
SELECT b_currency, n_amount - b_amount, 0, n_estimated::integer - b_estimated::integer, 0::bigint,
       greatest(n_amount - b_amount, 0), CASE WHEN n_amount > b_amount THEN 0 ELSE b_amount - n_amount END, 0::bigint, 0::bigint
WHERE b_amount IS NOT NULL AND n_amount IS NOT NULL AND b_currency = n_currency
UNION ALL
SELECT b_currency, -b_amount, -1, -b_estimated::integer, 0, 0, 0, b_amount, 0
WHERE b_amount IS NOT NULL AND NOT (n_amount IS NOT NULL AND b_currency = n_currency)
UNION ALL
SELECT n_currency, n_amount, 1, n_estimated::integer,
       CASE WHEN paid_before OR b_amount IS NOT NULL THEN 0 ELSE n_amount END, 0, 0, 0,
       CASE WHEN paid_before OR b_amount IS NOT NULL THEN n_amount ELSE 0 END
WHERE n_amount IS NOT NULL AND NOT (b_amount IS NOT NULL AND b_currency = n_currency)
$$;

-- A chain's `chain_mrr_moves` rows from its `chain_money_facts` rows: the transaction in force at each month's
-- last millisecond (the latest purchased by then whose served period runs past it and that is not refunded by
-- then), its monthly amount when more than 0 and priced, and the move from the previous month's end.
CREATE FUNCTION chain_mrr_moves_from(facts chain_money_facts[])
RETURNS SETOF chain_mrr_moves LANGUAGE sql IMMUTABLE AS $$
WITH f AS (SELECT * FROM unnest(facts)),
covered AS (
    SELECT m.month, f.purchase_ms, f.transaction_id, f.monthly_milli, f.currency, f.estimated
    FROM f
    CROSS JOIN LATERAL generate_series(
        date_trunc('month', to_timestamp(f.purchase_ms / 1000.0) AT TIME ZONE 'UTC'),
        date_trunc('month', to_timestamp(least(f.served_until_ms, coalesce(f.refund_ms, f.served_until_ms)) / 1000.0) AT TIME ZONE 'UTC'),
        interval '1 month') AS m(month)
    WHERE f.served_until_ms IS NOT NULL
      AND (extract(epoch FROM m.month + interval '1 month') * 1000)::bigint - 1 >= f.purchase_ms
      AND (extract(epoch FROM m.month + interval '1 month') * 1000)::bigint - 1
          < least(f.served_until_ms, coalesce(f.refund_ms, f.served_until_ms))
),
picked AS (
    SELECT DISTINCT ON (c.month) c.month, c.monthly_milli, c.currency, c.estimated
    FROM covered c ORDER BY c.month, c.purchase_ms DESC, c.transaction_id COLLATE "C" DESC
),
paying AS (SELECT * FROM picked WHERE monthly_milli > 0 AND currency IS NOT NULL),
pairs AS (
    SELECT coalesce(n.month, b.month + interval '1 month') AS month,
           b.monthly_milli AS b_amount, b.currency AS b_currency, b.estimated AS b_estimated,
           n.monthly_milli AS n_amount, n.currency AS n_currency, n.estimated AS n_estimated
    FROM paying n FULL JOIN paying b ON b.month + interval '1 month' = n.month
    WHERE (b.monthly_milli, b.currency, b.estimated) IS DISTINCT FROM (n.monthly_milli, n.currency, n.estimated)
)
SELECT (facts[1]).app_id, (facts[1]).environment, (facts[1]).original_transaction_id, p.month::date, m.*
FROM pairs p
CROSS JOIN LATERAL mrr_move_rows(
    p.b_amount, p.b_currency, p.b_estimated, p.n_amount, p.n_currency, p.n_estimated,
    coalesce((facts[1]).first_paid_ms < (extract(epoch FROM p.month) * 1000)::bigint - 1, false)) m
WHERE m.mrr_delta <> 0 OR m.subscribers_delta <> 0 OR m.estimated_delta <> 0
$$;

-- Per chain, each instant at which its MRR changes (a transaction starts or stops being the one in force, by the
-- rule above) and the change, per currency: MRR at any instant is the sum of the steps up to it. What `mrr` reads
-- for a month measured before its end (the current month, at now): only the chains with a step since the
-- previous month's end, not every transaction in force. `first_paid_ms`: the chain's first paid purchase.
CREATE TABLE chain_mrr_steps (
    app_id                  bigint NOT NULL,
    environment             text NOT NULL,
    original_transaction_id text NOT NULL,
    at_ms                   bigint NOT NULL,
    currency                text NOT NULL,
    mrr_delta               bigint NOT NULL,
    subscribers_delta       integer NOT NULL,
    estimated_delta         integer NOT NULL,
    first_paid_ms           bigint,
    PRIMARY KEY (app_id, environment, original_transaction_id, at_ms, currency)
);
COMMENT ON TABLE chain_mrr_steps IS 'citus: distributed by original_transaction_id';
CREATE INDEX index_chain_mrr_steps_on_app_id_and_at_ms ON chain_mrr_steps (app_id, at_ms) INCLUDE (environment);

-- A chain's `chain_mrr_steps` rows from its `chain_money_facts` rows: its value (monthly amount when more than 0
-- and priced, currency, estimated) at every instant a transaction starts or ends, and the change from the value
-- before.
CREATE FUNCTION chain_mrr_steps_from(facts chain_money_facts[])
RETURNS SETOF chain_mrr_steps LANGUAGE sql IMMUTABLE AS $$
WITH f AS (SELECT * FROM unnest(facts) WHERE served_until_ms IS NOT NULL),
bounds AS (
    SELECT DISTINCT v.at FROM f
    CROSS JOIN LATERAL (VALUES (f.purchase_ms), (least(f.served_until_ms, coalesce(f.refund_ms, f.served_until_ms)))) AS v(at)
),
valued AS (
    SELECT b.at, CASE WHEN p.monthly_milli > 0 AND p.currency IS NOT NULL THEN p.monthly_milli END AS amount,
           CASE WHEN p.monthly_milli > 0 AND p.currency IS NOT NULL THEN p.currency END AS currency,
           CASE WHEN p.monthly_milli > 0 AND p.currency IS NOT NULL THEN p.estimated END AS estimated
    FROM bounds b
    LEFT JOIN LATERAL (
        SELECT f.monthly_milli, f.currency, f.estimated FROM f
        WHERE f.purchase_ms <= b.at AND f.served_until_ms > b.at AND (f.refund_ms IS NULL OR f.refund_ms > b.at)
        ORDER BY f.purchase_ms DESC, f.transaction_id COLLATE "C" DESC
        LIMIT 1
    ) p ON true
),
changes AS (
    SELECT v.at, v.amount AS n_amount, v.currency AS n_currency, v.estimated AS n_estimated,
           lag(v.amount) OVER w AS b_amount, lag(v.currency) OVER w AS b_currency, lag(v.estimated) OVER w AS b_estimated
    FROM valued v WINDOW w AS (ORDER BY v.at)
)
SELECT (facts[1]).app_id, (facts[1]).environment, (facts[1]).original_transaction_id, c.at, d.currency,
       d.mrr_delta, d.subscribers_delta, d.estimated_delta, (facts[1]).first_paid_ms
FROM changes c
CROSS JOIN LATERAL (
    SELECT c.b_currency, c.n_amount - c.b_amount, 0, c.n_estimated::integer - c.b_estimated::integer
    WHERE c.b_amount IS NOT NULL AND c.n_amount IS NOT NULL AND c.b_currency = c.n_currency
    UNION ALL
    SELECT c.b_currency, -c.b_amount, -1, -c.b_estimated::integer
    WHERE c.b_amount IS NOT NULL AND NOT (c.n_amount IS NOT NULL AND c.b_currency = c.n_currency)
    UNION ALL
    SELECT c.n_currency, c.n_amount, 1, c.n_estimated::integer
    WHERE c.n_amount IS NOT NULL AND NOT (c.b_amount IS NOT NULL AND c.b_currency = c.n_currency)
) AS d(currency, mrr_delta, subscribers_delta, estimated_delta)
WHERE (c.b_amount, c.b_currency, c.b_estimated) IS DISTINCT FROM (c.n_amount, c.n_currency, c.n_estimated)
$$;

-- The rows of the chains that exist when this step runs.
INSERT INTO chain_money_facts
SELECT f.* FROM chains c
CROSS JOIN LATERAL chain_money_facts_of(c.app_id, c.environment, c.original_transaction_id) f;

INSERT INTO chain_mrr_moves
SELECT m.* FROM (
    SELECT array_agg(f ORDER BY f.transaction_id) AS facts FROM chain_money_facts f
    GROUP BY f.app_id, f.environment, f.original_transaction_id
) c
CROSS JOIN LATERAL chain_mrr_moves_from(c.facts) m;

INSERT INTO chain_mrr_steps
SELECT m.* FROM (
    SELECT array_agg(f ORDER BY f.transaction_id) AS facts FROM chain_money_facts f
    GROUP BY f.app_id, f.environment, f.original_transaction_id
) c
CROSS JOIN LATERAL chain_mrr_steps_from(c.facts) m;
