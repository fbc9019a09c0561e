-- step 39: Google Play's real-time developer notifications kept like Apple's, where the voided purchases poll stands, and Google's service fee in revenue
-- A Pub/Sub push of an RTDN is stored as received in `notifications` (version `google_rtdn`, its id
-- `google_play:<package>:<messageId>`, so a redelivery finds the stored row) before Google is asked for the state it
-- hints at; a row whose read or apply failed is applied later by the renewal job, as Apple's are.
ALTER TABLE notifications DROP CONSTRAINT notifications_version_check;
ALTER TABLE notifications ADD CONSTRAINT notifications_version_check
    CHECK (version IN ('v1', 'v2', 'google_rtdn'));

-- Each Google Play app's place in `purchases.voidedpurchases.list`: the voided time every voided purchase before
-- which has been applied, and the list in progress (its window's end and the next page's continuation token), so a
-- poll that stops between pages goes on from the page after the last one applied. One poller at a time per app
-- (leased_until / leased_by).
CREATE TABLE google_play_voided_cursors (
    app_id          bigint PRIMARY KEY REFERENCES apps (app_id),
    polled_through  timestamptz,
    window_start    timestamptz,
    window_end      timestamptz,
    page_token      text CHECK (page_token IS NULL OR length(page_token) BETWEEN 1 AND 4096),
    pages           bigint NOT NULL DEFAULT 0,
    voided_seen     bigint NOT NULL DEFAULT 0,
    last_polled_at  timestamptz,
    last_error      text,
    leased_until    timestamptz,
    leased_by       text
);
COMMENT ON TABLE google_play_voided_cursors IS 'citus: coordinator';

-- Google Play's service fee: 15 % on every auto-renewing subscription sale, from the first (the App Store's reduced
-- rate comes after a year of paid service). `transaction_amounts` shows each transaction's source, and a Google Play
-- subscription's fact has the reduced rate (`second_year`, which the revenue report reads as "the reduced rate
-- applies") from its first sale. One-time products follow the app's program periods, as on the App Store (Google's
-- 15 % on the first million of a year is a program the developer enrolls in). The chains that hold a Google Play
-- subscription transaction are queued for the report projector, which recomputes their facts.
CREATE OR REPLACE VIEW transaction_amounts AS
SELECT t.app_id, t.environment, t.transaction_id, t.original_transaction_id, t.product_id, t.account_id,
    t.purchase_date, t.expires_date, t.revocation_date, t.storefront, t.offer_type, t.offer_discount_type,
    t.is_trial_period, t.is_in_intro_offer_period,
    CASE WHEN t.is_trial_period OR t.offer_discount_type = 'FREE_TRIAL' THEN 0
        ELSE coalesce(t.price_milliunits, catalog.price_milliunits) END AS amount_milliunits,
    coalesce(t.currency, catalog.currency) AS currency,
    (t.price_milliunits IS NULL AND NOT (t.is_trial_period OR t.offer_discount_type IS NOT DISTINCT FROM 'FREE_TRIAL')
        AND catalog.price_milliunits IS NOT NULL) AS estimated,
    t.revocation_percentage, t.billing_plan, t.source
FROM transactions t
LEFT JOIN LATERAL (
    SELECT p.price_milliunits, p.currency FROM catalog_prices p
    WHERE p.app_id = t.app_id AND p.product_id = t.product_id AND t.price_milliunits IS NULL
        AND (p.storefront = t.storefront OR p.storefront IS NULL) AND p.effective_from <= t.purchase_date
    ORDER BY (p.storefront IS NULL), p.effective_from DESC
    LIMIT 1
) catalog ON true;

-- Step 34's function, a Google Play subscription's sale at the reduced rate.
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
                               a.revocation_percentage AS refund_percentage, a.billing_plan, a.source,
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

INSERT INTO report_projection_queue (app_id, environment, original_transaction_id, changed_at)
SELECT DISTINCT t.app_id, t.environment, t.original_transaction_id, now()
FROM transactions t WHERE t.source = 'google_play_api' AND t.expires_date IS NOT NULL;
