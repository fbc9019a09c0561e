-- step 58: no upgrade credit where no upgrade refunded the rest of a period
-- A transaction of a chain that a later one started before it expired is cut at that start (its served period ends
-- there, for MRR and paid days). It gives back the unused part of its price at that moment only where an upgrade
-- refunds it: on the App Store, to another product (`Store.refundsUnusedTimeOnReplacement`, `RevenueSale`).
-- - The same product starting again inside a period is a resubscription after a refund SubLedger has not heard of
--   yet (its notification lost), not an upgrade: the refund, once heard of, gives back what Apple states.
-- - Google Play gives no money back for a replaced subscription: the old period's remaining value is carried over as
--   time, or the new plan starts when the old one ends.
-- - Stripe states a proration on the next invoice, whose amount paid already counts it.
-- The chains with such a cut are queued for the report projector, which recomputes their facts.
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
                                     ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) >= 365::bigint * 86400000
           OR (h.source = 'google_play_api' AND h.expires_ms IS NOT NULL),
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
                   (u.amount > 0 AND u.refund_ms IS NULL AND u.upgrade_ms IS NOT NULL
                    AND u.source IN ('verify_receipt', 'signed_transaction', 'notification_v2', 'notification_v1',
                                     'server_api')
                    AND u.next_product IS DISTINCT FROM u.product_id) AS credits
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
                               a.revocation_percentage AS refund_percentage, a.billing_plan, a.source,
                               a.amount_milliunits AS amount, a.currency, a.storefront, coalesce(a.estimated, false) AS estimated,
                               (extract(epoch FROM lead(a.purchase_date) OVER (
                                   ORDER BY a.purchase_date, a.transaction_id COLLATE "C")) * 1000)::bigint AS next_ms,
                               lead(a.product_id) OVER (ORDER BY a.purchase_date, a.transaction_id COLLATE "C") AS next_product
                        FROM transaction_amounts a
                        WHERE a.app_id = p_app_id AND a.environment = p_environment AND a.original_transaction_id = p_chain
                    ) r
                ) t
            ) u
        ) s
    ) g
) h
$$;

INSERT INTO report_projection_queue (app_id, environment, original_transaction_id, changed_at)
SELECT DISTINCT o.app_id, o.environment, o.original_transaction_id, now()
FROM (
    SELECT t.app_id, t.environment, t.original_transaction_id, t.expires_date,
           lead(t.purchase_date) OVER (PARTITION BY t.app_id, t.environment, t.original_transaction_id
                                       ORDER BY t.purchase_date, t.transaction_id COLLATE "C") AS next_purchase
    FROM transactions t
) o
WHERE o.next_purchase < o.expires_date;
