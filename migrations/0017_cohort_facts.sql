-- step 17: cohort reports: a per-chain aggregate of what trials and retention read, kept by every apply
-- Per chain, what the `retention` and `trials` reports need (docs/reports.md, "Cohort facts"): the first payment
-- (NULL: none), the months since it that a payment covered (bit k; months 0 to 61), the money of its paid
-- transactions per month since the first payment, currency and purchase day (parallel arrays, ordered by those),
-- and its first offer (free trial or paid intro), whether that converted and until when an offer runs. Written by
-- `LedgerStore.apply` for the chains it changes, in its transaction, from `chain_cohort_facts_of`; recomputed
-- for a whole app by `LedgerStore.refreshCohortFacts(app:)` when catalog prices or product types change.
-- A chain with neither a payment nor an offer has no row.
CREATE TABLE chain_cohort_facts (
    app_id                  bigint NOT NULL,
    environment             text NOT NULL,
    original_transaction_id text NOT NULL,
    first_paid_at           timestamptz,
    paid_mask               bigint NOT NULL,
    money_months            integer[] NOT NULL,
    money_currencies        text[] NOT NULL,
    money_days              date[] NOT NULL,
    money_gross             bigint[] NOT NULL,
    money_refunded          bigint[] NOT NULL,
    money_estimated         integer[] NOT NULL,
    money_unpriced          integer[] NOT NULL,
    money_priced            integer[] NOT NULL,
    offer_started_at        timestamptz,
    offer_product_id        text,
    offer_is_trial          boolean,
    offer_converted         boolean,
    offer_running_until     timestamptz,
    PRIMARY KEY (app_id, environment, original_transaction_id)
);
COMMENT ON TABLE chain_cohort_facts IS 'citus: distributed by original_transaction_id';
CREATE INDEX index_chain_cohort_facts_on_app_id_and_first_paid_at
    ON chain_cohort_facts (app_id, first_paid_at) WHERE first_paid_at IS NOT NULL;
CREATE INDEX index_chain_cohort_facts_on_app_id_and_offer_started_at
    ON chain_cohort_facts (app_id, offer_started_at) WHERE offer_started_at IS NOT NULL;

-- One chain's row of `chain_cohort_facts`, computed from its transactions (exactly one row; both NULL when the
-- chain has neither a payment nor an offer). The rules are docs/revenue.md's "Cohorts: trials and retention",
-- the same as SubLedgerReports' CohortSQL (the reports' reference queries over the ledger): a paid transaction
-- is of an auto-renewable product, not a free trial, not Family Shared; refunded = revoked and not `isUpgraded`;
-- a period that was not refunded covers the months since the first payment from its purchase to its end (cut
-- at an upgrade); amounts are Apple's, else the catalog's price point (estimated).
CREATE FUNCTION chain_cohort_facts_of(p_app_id bigint, p_environment text, p_chain text)
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
               coalesce(sum(m.amount) FILTER (WHERE m.refunded), 0)::bigint AS refunded,
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
                           coalesce(t.price_milliunits, catalog.price_milliunits) AS amount,
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

-- The rows of the chains that exist when this step runs.
INSERT INTO chain_cohort_facts
SELECT f.* FROM chains c
CROSS JOIN LATERAL chain_cohort_facts_of(c.app_id, c.environment, c.original_transaction_id) f
WHERE f.first_paid_at IS NOT NULL OR f.offer_started_at IS NOT NULL;
