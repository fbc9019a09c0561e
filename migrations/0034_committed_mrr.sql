-- step 34: committed MRR: the transactions of a commitment plan, and MRR counting them apart
-- A monthly plan with a 12-month commitment (iOS 26.5; Apple's `billingPlanType` `MONTHLY`) bills every month but
-- binds the customer for the commitment: turning auto-renew off inside it stops nothing before the commitment's
-- end. `transactions.billing_plan` keeps the plan each transaction was bought on (as Apple signed it; written by the
-- apply, filled here for the transactions stored before), `transaction_amounts` shows it, `chain_money_facts.committed`
-- marks the facts of a commitment plan, and the MRR aggregates count the MRR and the subscribers of the transactions
-- in force that are committed (`committed_mrr_delta`, `committed_subscribers_delta` of `chain_mrr_moves` and
-- `chain_mrr_steps`), by the rules of SubLedgerCore's `MRRSeries`. The chains that hold a commitment plan's
-- transaction are queued for the report projector, which recomputes their rows; every other chain's rows are
-- already right (nothing committed). `chain_state_changes.billing_plan` keeps the plan of the chain's latest
-- transaction at each change, so `churn` counts the expiries of commitment plans (`expired_committed`).
ALTER TABLE transactions ADD COLUMN billing_plan text;
UPDATE transactions
SET billing_plan = coalesce(payload -> 'signedDetails' ->> 'billingPlanType', payload -> 'transaction' ->> 'billingPlanType')
WHERE coalesce(payload -> 'signedDetails' ->> 'billingPlanType', payload -> 'transaction' ->> 'billingPlanType')
      IN ('MONTHLY', 'BILLED_UPFRONT');

CREATE OR REPLACE VIEW transaction_amounts AS
SELECT t.app_id, t.environment, t.transaction_id, t.original_transaction_id, t.product_id, t.account_id,
    t.purchase_date, t.expires_date, t.revocation_date, t.storefront, t.offer_type, t.offer_discount_type,
    t.is_trial_period, t.is_in_intro_offer_period,
    CASE WHEN t.is_trial_period OR t.offer_discount_type = 'FREE_TRIAL' THEN 0
        ELSE coalesce(t.price_milliunits, catalog.price_milliunits) END AS amount_milliunits,
    coalesce(t.currency, catalog.currency) AS currency,
    (t.price_milliunits IS NULL AND NOT (t.is_trial_period OR t.offer_discount_type IS NOT DISTINCT FROM 'FREE_TRIAL')
        AND catalog.price_milliunits IS NOT NULL) AS estimated,
    t.revocation_percentage, t.billing_plan
FROM transactions t
LEFT JOIN LATERAL (
    SELECT p.price_milliunits, p.currency FROM catalog_prices p
    WHERE p.app_id = t.app_id AND p.product_id = t.product_id AND t.price_milliunits IS NULL
        AND (p.storefront = t.storefront OR p.storefront IS NULL) AND p.effective_from <= t.purchase_date
    ORDER BY (p.storefront IS NULL), p.effective_from DESC
    LIMIT 1
) catalog ON true;

-- `chain_money_facts.committed`: the transaction is of a commitment plan.
ALTER TABLE chain_money_facts ADD COLUMN committed boolean NOT NULL DEFAULT false;

-- Step 28's function with whether the transaction is committed as its last column.
CREATE OR REPLACE FUNCTION chain_money_facts_of(p_app_id bigint, p_environment text, p_chain text)
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
       h.first_paid_ms,
       CASE WHEN h.refund_ms IS NOT NULL AND h.amount IS NOT NULL THEN refunded_milli(h.amount, h.refund_percentage) END,
       h.billing_plan IS NOT DISTINCT FROM 'MONTHLY'
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
                               a.revocation_percentage AS refund_percentage, a.billing_plan,
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

-- The committed part of each MRR change: how the MRR of committed subscribers and their count moved.
ALTER TABLE chain_mrr_moves
    ADD COLUMN committed_mrr_delta bigint NOT NULL DEFAULT 0,
    ADD COLUMN committed_subscribers_delta integer NOT NULL DEFAULT 0;
DROP INDEX index_chain_mrr_moves_on_app_id_and_month;
CREATE INDEX index_chain_mrr_moves_on_app_id_and_month
    ON chain_mrr_moves (app_id, month)
    INCLUDE (environment, currency, mrr_delta, subscribers_delta, estimated_delta, new_milli, expansion_milli,
             contraction_milli, churned_milli, reactivation_milli, committed_mrr_delta, committed_subscribers_delta);
ALTER TABLE chain_mrr_steps
    ADD COLUMN committed_mrr_delta bigint NOT NULL DEFAULT 0,
    ADD COLUMN committed_subscribers_delta integer NOT NULL DEFAULT 0;

-- Step 19's move of one subscriber, with whether it was committed before (`b_committed`) and after (`n_committed`):
-- its MRR counts as committed MRR while it is.
DROP FUNCTION mrr_move_rows(bigint, text, boolean, bigint, text, boolean, boolean);
CREATE FUNCTION mrr_move_rows(b_amount bigint, b_currency text, b_estimated boolean, b_committed boolean,
                              n_amount bigint, n_currency text, n_estimated boolean, n_committed boolean,
                              paid_before boolean)
RETURNS TABLE (currency text, mrr_delta bigint, subscribers_delta integer, estimated_delta integer, new_milli bigint,
               expansion_milli bigint, contraction_milli bigint, churned_milli bigint, reactivation_milli bigint,
               committed_mrr_delta bigint, committed_subscribers_delta integer)
LANGUAGE sql IMMUTABLE AS $$
SELECT b_currency, n_amount - b_amount, 0, n_estimated::integer - b_estimated::integer, 0::bigint,
       greatest(n_amount - b_amount, 0), CASE WHEN n_amount > b_amount THEN 0 ELSE b_amount - n_amount END, 0::bigint, 0::bigint,
       CASE WHEN n_committed THEN n_amount ELSE 0 END - CASE WHEN b_committed THEN b_amount ELSE 0 END,
       n_committed::integer - b_committed::integer
WHERE b_amount IS NOT NULL AND n_amount IS NOT NULL AND b_currency = n_currency
UNION ALL
SELECT b_currency, -b_amount, -1, -b_estimated::integer, 0, 0, 0, b_amount, 0,
       CASE WHEN b_committed THEN -b_amount ELSE 0 END, -b_committed::integer
WHERE b_amount IS NOT NULL AND NOT (n_amount IS NOT NULL AND b_currency = n_currency)
UNION ALL
SELECT n_currency, n_amount, 1, n_estimated::integer,
       CASE WHEN paid_before OR b_amount IS NOT NULL THEN 0 ELSE n_amount END, 0, 0, 0,
       CASE WHEN paid_before OR b_amount IS NOT NULL THEN n_amount ELSE 0 END,
       CASE WHEN n_committed THEN n_amount ELSE 0 END, n_committed::integer
WHERE n_amount IS NOT NULL AND NOT (b_amount IS NOT NULL AND b_currency = n_currency)
$$;

-- Step 19's function, the transaction in force carrying whether it is committed.
CREATE OR REPLACE FUNCTION chain_mrr_moves_from(facts chain_money_facts[])
RETURNS SETOF chain_mrr_moves LANGUAGE sql IMMUTABLE AS $$
WITH f AS (SELECT * FROM unnest(facts)),
covered AS (
    SELECT m.month, f.purchase_ms, f.transaction_id, f.monthly_milli, f.currency, f.estimated, f.committed
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
    SELECT DISTINCT ON (c.month) c.month, c.monthly_milli, c.currency, c.estimated, c.committed
    FROM covered c ORDER BY c.month, c.purchase_ms DESC, c.transaction_id COLLATE "C" DESC
),
paying AS (SELECT * FROM picked WHERE monthly_milli > 0 AND currency IS NOT NULL),
pairs AS (
    SELECT coalesce(n.month, b.month + interval '1 month') AS month,
           b.monthly_milli AS b_amount, b.currency AS b_currency, b.estimated AS b_estimated, b.committed AS b_committed,
           n.monthly_milli AS n_amount, n.currency AS n_currency, n.estimated AS n_estimated, n.committed AS n_committed
    FROM paying n FULL JOIN paying b ON b.month + interval '1 month' = n.month
    WHERE (b.monthly_milli, b.currency, b.estimated, b.committed)
          IS DISTINCT FROM (n.monthly_milli, n.currency, n.estimated, n.committed)
)
SELECT (facts[1]).app_id, (facts[1]).environment, (facts[1]).original_transaction_id, p.month::date,
       m.currency, m.mrr_delta, m.subscribers_delta, m.estimated_delta, m.new_milli, m.expansion_milli,
       m.contraction_milli, m.churned_milli, m.reactivation_milli, m.committed_mrr_delta, m.committed_subscribers_delta
FROM pairs p
CROSS JOIN LATERAL mrr_move_rows(
    p.b_amount, p.b_currency, p.b_estimated, p.b_committed, p.n_amount, p.n_currency, p.n_estimated, p.n_committed,
    coalesce((facts[1]).first_paid_ms < (extract(epoch FROM p.month) * 1000)::bigint - 1, false)) m
WHERE m.mrr_delta <> 0 OR m.subscribers_delta <> 0 OR m.estimated_delta <> 0
   OR m.committed_mrr_delta <> 0 OR m.committed_subscribers_delta <> 0
$$;

-- Step 19's function, each value carrying whether the transaction in force is committed.
CREATE OR REPLACE FUNCTION chain_mrr_steps_from(facts chain_money_facts[])
RETURNS SETOF chain_mrr_steps LANGUAGE sql IMMUTABLE AS $$
WITH f AS (SELECT * FROM unnest(facts) WHERE served_until_ms IS NOT NULL),
bounds AS (
    SELECT DISTINCT v.at FROM f
    CROSS JOIN LATERAL (VALUES (f.purchase_ms), (least(f.served_until_ms, coalesce(f.refund_ms, f.served_until_ms)))) AS v(at)
),
valued AS (
    SELECT b.at, CASE WHEN p.monthly_milli > 0 AND p.currency IS NOT NULL THEN p.monthly_milli END AS amount,
           CASE WHEN p.monthly_milli > 0 AND p.currency IS NOT NULL THEN p.currency END AS currency,
           CASE WHEN p.monthly_milli > 0 AND p.currency IS NOT NULL THEN p.estimated END AS estimated,
           CASE WHEN p.monthly_milli > 0 AND p.currency IS NOT NULL THEN p.committed END AS committed
    FROM bounds b
    LEFT JOIN LATERAL (
        SELECT f.monthly_milli, f.currency, f.estimated, f.committed FROM f
        WHERE f.purchase_ms <= b.at AND f.served_until_ms > b.at AND (f.refund_ms IS NULL OR f.refund_ms > b.at)
        ORDER BY f.purchase_ms DESC, f.transaction_id COLLATE "C" DESC
        LIMIT 1
    ) p ON true
),
changes AS (
    SELECT v.at, v.amount AS n_amount, v.currency AS n_currency, v.estimated AS n_estimated, v.committed AS n_committed,
           lag(v.amount) OVER w AS b_amount, lag(v.currency) OVER w AS b_currency, lag(v.estimated) OVER w AS b_estimated,
           lag(v.committed) OVER w AS b_committed
    FROM valued v WINDOW w AS (ORDER BY v.at)
)
SELECT (facts[1]).app_id, (facts[1]).environment, (facts[1]).original_transaction_id, c.at, d.currency,
       d.mrr_delta, d.subscribers_delta, d.estimated_delta, (facts[1]).first_paid_ms, d.committed_mrr_delta,
       d.committed_subscribers_delta
FROM changes c
CROSS JOIN LATERAL (
    SELECT m.currency, m.mrr_delta, m.subscribers_delta, m.estimated_delta, m.committed_mrr_delta,
           m.committed_subscribers_delta
    FROM mrr_move_rows(c.b_amount, c.b_currency, c.b_estimated, c.b_committed, c.n_amount, c.n_currency,
                       c.n_estimated, c.n_committed, false) m
) AS d
WHERE (c.b_amount, c.b_currency, c.b_estimated, c.b_committed)
      IS DISTINCT FROM (c.n_amount, c.n_currency, c.n_estimated, c.n_committed)
$$;

-- The chains holding a commitment plan's transaction: their rows are recomputed by the report projector.
INSERT INTO report_projection_queue (app_id, environment, original_transaction_id, changed_at)
SELECT DISTINCT t.app_id, t.environment, t.original_transaction_id, now()
FROM transactions t WHERE t.billing_plan = 'MONTHLY';

-- Each state change keeps the plan of the chain's latest transaction when it was recorded, as the chain row does
-- (step 33), so that `churn` tells the expiries of commitment plans apart without reading the transactions. Filled
-- for the changes recorded before, in the chains that hold a transaction with a billing plan: the plan of the latest
-- transaction purchased by the change.
ALTER TABLE chain_state_changes ADD COLUMN billing_plan text;
UPDATE chain_state_changes x SET billing_plan = (
    SELECT t.billing_plan FROM transactions t
    WHERE t.app_id = x.app_id AND t.environment = x.environment AND t.original_transaction_id = x.original_transaction_id
      AND t.purchase_date <= x.changed_at
    ORDER BY t.purchase_date DESC, t.transaction_id DESC
    LIMIT 1)
WHERE (x.app_id, x.environment, x.original_transaction_id) IN (
    SELECT app_id, environment, original_transaction_id FROM transactions WHERE billing_plan IS NOT NULL);
