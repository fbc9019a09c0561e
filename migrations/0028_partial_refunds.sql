-- step 28: partial refunds: the refunded share of a transaction, and every money aggregate netting only that share
-- Apple states on a StoreKit 2 transaction refunded in part (`revocationType` `REFUND_PRORATED`) the share refunded,
-- `revocationPercentage`, in thousandths of a percent (0 to 100000; 25000 is 25 %). `transactions` keeps the
-- active revocation's percentage (NULL: not stated, which counts as the whole price; receipts never state it),
-- `transaction_amounts` shows it, `refunded_milli` applies it to an amount with SubLedgerCore's
-- `RevocationPercentage.refunded` rule (rounded half up), and the money aggregates give back that amount instead of
-- the whole price: `chain_money_facts.refund_milli` (the amount a refund in force gave back), the refunds that
-- `revenue_day_totals` counts (kind 1), and the refunded money of `chain_cohort_facts`. Access is not affected:
-- it still ends at the revocation date. Rows written before this step were computed with the whole price, as
-- every refund stored then was one (the percentage was not kept), so they stay as they are.
ALTER TABLE transactions ADD COLUMN revocation_percentage integer
    CHECK (revocation_percentage BETWEEN 0 AND 100000);

-- The refunded part of an amount (milli-units, not negative): amount × percentage ÷ 100000 rounded half up; the
-- whole amount when the percentage is NULL or 100000 or more.
CREATE FUNCTION refunded_milli(p_amount bigint, p_percentage integer) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
SELECT CASE WHEN p_amount IS NULL THEN NULL
            WHEN p_percentage IS NULL OR p_percentage >= 100000 OR p_amount <= 0 THEN greatest(p_amount, 0)
            ELSE div(p_amount::numeric * greatest(p_percentage, 0) + 50000, 100000)::bigint END
$$;

CREATE OR REPLACE VIEW transaction_amounts AS
SELECT t.app_id, t.environment, t.transaction_id, t.original_transaction_id, t.product_id, t.account_id,
    t.purchase_date, t.expires_date, t.revocation_date, t.storefront, t.offer_type, t.offer_discount_type,
    t.is_trial_period, t.is_in_intro_offer_period,
    CASE WHEN t.is_trial_period OR t.offer_discount_type = 'FREE_TRIAL' THEN 0
        ELSE coalesce(t.price_milliunits, catalog.price_milliunits) END AS amount_milliunits,
    coalesce(t.currency, catalog.currency) AS currency,
    (t.price_milliunits IS NULL AND NOT (t.is_trial_period OR t.offer_discount_type IS NOT DISTINCT FROM 'FREE_TRIAL')
        AND catalog.price_milliunits IS NOT NULL) AS estimated,
    t.revocation_percentage
FROM transactions t
LEFT JOIN LATERAL (
    SELECT p.price_milliunits, p.currency FROM catalog_prices p
    WHERE p.app_id = t.app_id AND p.product_id = t.product_id AND t.price_milliunits IS NULL
        AND (p.storefront = t.storefront OR p.storefront IS NULL) AND p.effective_from <= t.purchase_date
    ORDER BY (p.storefront IS NULL), p.effective_from DESC
    LIMIT 1
) catalog ON true;

-- `chain_money_facts.refund_milli`: what a refund in force gave back (NULL: no refund, or unpriced).
ALTER TABLE chain_money_facts ADD COLUMN refund_milli bigint;
UPDATE chain_money_facts SET refund_milli = amount_milli WHERE refund_ms IS NOT NULL AND amount_milli IS NOT NULL;

-- Step 19's function with the refunded amount as its last column.
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
       CASE WHEN h.refund_ms IS NOT NULL AND h.amount IS NOT NULL THEN refunded_milli(h.amount, h.refund_percentage) END
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
                               a.revocation_percentage AS refund_percentage,
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

-- Step 22's rows of one facts row, the refund counted at the amount it gave back.
DROP FUNCTION revenue_day_rows_of(bigint, bigint, bigint, bigint, bigint, boolean);
CREATE FUNCTION revenue_day_rows_of(
    p_purchase_ms bigint, p_refund_ms bigint, p_refund_milli bigint, p_credit_ms bigint, p_credit_milli bigint,
    p_amount_milli bigint, p_estimated boolean)
RETURNS TABLE (kind smallint, day integer, bought_day integer, amount_milli bigint, estimated boolean)
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
SELECT 0::smallint, revenue_day_of(p_purchase_ms), revenue_day_of(p_purchase_ms), p_amount_milli, p_estimated
UNION ALL
SELECT 1::smallint, revenue_day_of(p_refund_ms), revenue_day_of(p_purchase_ms), p_refund_milli, p_estimated
WHERE p_refund_ms IS NOT NULL AND p_amount_milli > 0
UNION ALL
SELECT 2::smallint, revenue_day_of(p_credit_ms), revenue_day_of(p_purchase_ms), p_credit_milli, true
WHERE p_credit_ms IS NOT NULL
$$;

-- Step 17's function with a refund's money at the amount it gave back.
CREATE OR REPLACE FUNCTION chain_cohort_facts_of(p_app_id bigint, p_environment text, p_chain text)
RETURNS SETOF chain_cohort_facts LANGUAGE sql STABLE AS $$
SELECT p_app_id, p_environment, p_chain, paid.first_paid_at, paid.paid_mask,
       paid.months, paid.currencies, paid.days, paid.gross, paid.refunded, paid.estimated, paid.unpriced, paid.priced,
       offer.purchase_date, offer.product_id, offer.is_trial, offer.converted, offer.running_until
FROM (
    SELECT min(d.anchor) AT TIME ZONE 'UTC' AS first_paid_at, coalesce(bit_or(d.bits), 0)::bigint AS paid_mask,
           coalesce(array_agg(d.month ORDER BY d.month, d.currency, d.day), '{}')::integer[] AS months,
           coalesce(array_agg(d.currency ORDER BY d.month, d.currency, d.day), '{}')::text[] AS currencies,
           coalesce(array_agg(d.day ORDER BY d.month, d.currency, d.day), '{}')::date[] AS days,
           coalesce(array_agg(d.gross ORDER BY d.month, d.currency, d.day), '{}')::bigint[] AS gross,
           coalesce(array_agg(d.refunded ORDER BY d.month, d.currency, d.day), '{}')::bigint[] AS refunded,
           coalesce(array_agg(d.estimated ORDER BY d.month, d.currency, d.day), '{}')::integer[] AS estimated,
           coalesce(array_agg(d.unpriced ORDER BY d.month, d.currency, d.day), '{}')::integer[] AS unpriced,
           coalesce(array_agg(d.priced ORDER BY d.month, d.currency, d.day), '{}')::integer[] AS priced
    FROM (
        SELECT m.anchor, m.month, m.currency, m.bought::date AS day,
               bit_or(CASE WHEN m.last_month IS NULL OR m.month > least(m.last_month, 61) THEN 0::bigint
                           ELSE (1::bigint << (least(m.last_month, 61) + 1)) - (1::bigint << m.month) END) AS bits,
               coalesce(sum(m.amount), 0)::bigint AS gross,
               coalesce(sum(refunded_milli(m.amount, m.revocation_percentage)) FILTER (WHERE m.refunded), 0)::bigint AS refunded,
               (count(*) FILTER (WHERE m.estimated))::integer AS estimated,
               (count(*) FILTER (WHERE m.amount IS NULL))::integer AS unpriced,
               (count(*) FILTER (WHERE m.amount IS NOT NULL))::integer AS priced
        FROM (
            SELECT a.*,
                   (((extract(year FROM a.bought) - extract(year FROM a.anchor)) * 12 + extract(month FROM a.bought) - extract(month FROM a.anchor))::int
                    - CASE WHEN a.anchor + ((extract(year FROM a.bought) - extract(year FROM a.anchor)) * 12 + extract(month FROM a.bought) - extract(month FROM a.anchor))::int * interval '1 month' > a.bought THEN 1 ELSE 0 END) AS month,
                   CASE WHEN a.refunded OR a.paid_until IS NULL THEN NULL ELSE
                   (((extract(year FROM a.paid_until) - extract(year FROM a.anchor)) * 12 + extract(month FROM a.paid_until) - extract(month FROM a.anchor))::int
                    - CASE WHEN a.anchor + ((extract(year FROM a.paid_until) - extract(year FROM a.anchor)) * 12 + extract(month FROM a.paid_until) - extract(month FROM a.anchor))::int * interval '1 month' >= a.paid_until THEN 1 ELSE 0 END) END AS last_month
            FROM (
                SELECT p.*, min(p.bought) OVER () AS anchor
                FROM (
                    SELECT t.purchase_date AT TIME ZONE 'UTC' AS bought,
                           (CASE WHEN t.revocation_date IS NOT NULL THEN least(t.revocation_date, t.expires_date) ELSE t.expires_date END) AT TIME ZONE 'UTC' AS paid_until,
                           (t.revocation_date IS NOT NULL AND NOT coalesce((t.payload -> 'transaction' ->> 'isUpgraded')::boolean, false)) AS refunded,
                           coalesce(t.price_milliunits, catalog.price_milliunits) AS amount, t.revocation_percentage,
                           coalesce(t.currency, catalog.currency) AS currency,
                           (t.price_milliunits IS NULL AND catalog.price_milliunits IS NOT NULL) AS estimated
                    FROM transactions t
                    JOIN products pr ON pr.app_id = t.app_id AND pr.product_id = t.product_id AND pr.product_type = 'auto_renewable'
                    LEFT JOIN LATERAL (
                        SELECT cp.price_milliunits, cp.currency FROM catalog_prices cp
                        WHERE cp.app_id = t.app_id AND cp.product_id = t.product_id AND t.price_milliunits IS NULL
                          AND (cp.storefront = t.storefront OR cp.storefront IS NULL) AND cp.effective_from <= t.purchase_date
                        ORDER BY (cp.storefront IS NULL), cp.effective_from DESC
                        LIMIT 1
                    ) catalog ON true
                    WHERE t.app_id = p_app_id AND t.environment = p_environment AND t.original_transaction_id = p_chain
                      AND NOT (t.is_trial_period OR t.offer_discount_type IS NOT DISTINCT FROM 'FREE_TRIAL')
                      AND t.ownership_type <> 'FAMILY_SHARED'
                ) p
            ) a
        ) m
        GROUP BY m.anchor, m.month, m.currency, m.bought::date
    ) d
) paid
LEFT JOIN LATERAL (
    SELECT f.purchase_date, f.product_id, f.is_trial,
           EXISTS (
               SELECT 1 FROM transactions x
               WHERE x.app_id = p_app_id AND x.environment = p_environment AND x.original_transaction_id = p_chain
                 AND x.purchase_date > f.purchase_date
                 AND NOT (x.is_trial_period OR x.offer_discount_type IS NOT DISTINCT FROM 'FREE_TRIAL')
                 AND x.ownership_type <> 'FAMILY_SHARED'
                 AND NOT (x.revocation_date IS NOT NULL AND NOT coalesce((x.payload -> 'transaction' ->> 'isUpgraded')::boolean, false))
                 AND (f.is_trial OR NOT (NOT (x.is_trial_period OR x.offer_discount_type IS NOT DISTINCT FROM 'FREE_TRIAL')
                                         AND (x.is_in_intro_offer_period OR x.offer_type IS NOT DISTINCT FROM 1)))) AS converted,
           (SELECT max(x.expires_date) FROM transactions x
            WHERE x.app_id = p_app_id AND x.environment = p_environment AND x.original_transaction_id = p_chain
              AND x.purchase_date >= f.purchase_date AND x.revocation_date IS NULL
              AND (x.is_trial_period OR x.offer_discount_type = 'FREE_TRIAL' OR x.is_in_intro_offer_period OR x.offer_type = 1)) AS running_until
    FROM (
        SELECT t.purchase_date, t.product_id,
               (t.is_trial_period OR t.offer_discount_type IS NOT DISTINCT FROM 'FREE_TRIAL') AS is_trial
        FROM transactions t
        WHERE t.app_id = p_app_id AND t.environment = p_environment AND t.original_transaction_id = p_chain
          AND (t.is_trial_period OR t.offer_discount_type = 'FREE_TRIAL' OR t.is_in_intro_offer_period OR t.offer_type = 1)
        ORDER BY t.purchase_date, t.transaction_id
        LIMIT 1
    ) f
    JOIN products pr ON pr.app_id = p_app_id AND pr.product_id = f.product_id AND pr.product_type = 'auto_renewable'
) offer ON true
$$;
