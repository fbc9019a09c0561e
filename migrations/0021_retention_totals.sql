-- step 21: retention: per-cohort totals of chains per paid-month mask and of money per month, currency and day, kept by every apply
-- What `retention` reads for the cohorts whose whole UTC month lies in its range (docs/reports.md, "Cohort facts"),
-- summed from `chain_cohort_facts` so that the report reads a few rows per cohort instead of unnesting every
-- member's money: the chains per cohort (the UTC month of the first payment) and full paid-month mask, and their
-- money per month since the first payment, currency ('' for transactions without a known amount: `money_currencies`
-- holds NULL there) and purchase day. Only chains with a payment count. Each total is kept in 16 shards by chain so
-- that concurrent applies rarely wait on one another's row (a day's renewals of one cohort all add to one key). Exact
-- under concurrent applies: `chain_cohort_facts_refresh` adds the difference between each chain's old and new row
-- (ON CONFLICT ... x + EXCLUDED.x) in key order; the whole-app recompute of `catalog apply` sets the app's totals
-- from its recomputed facts. A total that returns to zero keeps its row (the report skips empty ones).
CREATE TABLE cohort_chain_totals (
    app_id                  bigint NOT NULL,
    cohort                  date NOT NULL,
    environment             text NOT NULL,
    paid_mask               bigint NOT NULL,
    shard                   smallint NOT NULL,
    chains                  bigint NOT NULL,
    PRIMARY KEY (app_id, cohort, environment, paid_mask, shard)
);
COMMENT ON TABLE cohort_chain_totals IS 'citus: coordinator';
CREATE TABLE cohort_money_totals (
    app_id                  bigint NOT NULL,
    cohort                  date NOT NULL,
    environment             text NOT NULL,
    month                   integer NOT NULL,
    currency                text NOT NULL,
    day                     date NOT NULL,
    shard                   smallint NOT NULL,
    gross                   bigint NOT NULL,
    refunded                bigint NOT NULL,
    estimated               bigint NOT NULL,
    unpriced                bigint NOT NULL,
    priced                  bigint NOT NULL,
    PRIMARY KEY (app_id, cohort, environment, month, currency, day, shard)
);
COMMENT ON TABLE cohort_money_totals IS 'citus: coordinator';

-- Step 18's refresh, which also keeps the totals above: the rows of `chain_cohort_facts` of chains `p_chains` of one
-- app and environment recomputed by `chain_cohort_facts_of` (written, deleted or left as step 18 does), and the
-- difference of the paid part of each chain whose paid part changed added to the totals: all the call's chains at
-- once, in key order, in two statements (none when no paid part changed: an apply that only moves an offer writes
-- none). The plans of both are kept for the connection's life, like the rest of the function's.
CREATE OR REPLACE FUNCTION chain_cohort_facts_refresh(p_app_id bigint, p_environment text, p_chains text[])
RETURNS void LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
    v_chain text;
    v_fresh chain_cohort_facts;
    v_old chain_cohort_facts;
    v_olds chain_cohort_facts[] := '{}';
    v_news chain_cohort_facts[] := '{}';
BEGIN
    FOREACH v_chain IN ARRAY coalesce(p_chains, '{}') LOOP
        SELECT * INTO STRICT v_fresh FROM chain_cohort_facts_of(p_app_id, p_environment, v_chain);
        v_old := NULL;
        SELECT * INTO v_old FROM chain_cohort_facts
        WHERE app_id = p_app_id AND environment = p_environment AND original_transaction_id = v_chain;
        IF v_fresh.first_paid_at IS NULL AND v_fresh.offer_started_at IS NULL THEN
            IF v_old.original_transaction_id IS NOT NULL THEN
                DELETE FROM chain_cohort_facts
                WHERE app_id = p_app_id AND environment = p_environment AND original_transaction_id = v_chain;
            END IF;
        ELSIF (v_old.*) IS DISTINCT FROM (v_fresh.*) THEN
            INSERT INTO chain_cohort_facts VALUES (v_fresh.*)
            ON CONFLICT (app_id, environment, original_transaction_id) DO UPDATE SET
                first_paid_at = EXCLUDED.first_paid_at, paid_mask = EXCLUDED.paid_mask,
                money_months = EXCLUDED.money_months, money_currencies = EXCLUDED.money_currencies,
                money_days = EXCLUDED.money_days, money_gross = EXCLUDED.money_gross,
                money_refunded = EXCLUDED.money_refunded, money_estimated = EXCLUDED.money_estimated,
                money_unpriced = EXCLUDED.money_unpriced, money_priced = EXCLUDED.money_priced,
                offer_started_at = EXCLUDED.offer_started_at, offer_product_id = EXCLUDED.offer_product_id,
                offer_is_trial = EXCLUDED.offer_is_trial, offer_converted = EXCLUDED.offer_converted,
                offer_running_until = EXCLUDED.offer_running_until;
        END IF;
        IF (v_old.first_paid_at, v_old.paid_mask, v_old.money_months, v_old.money_currencies, v_old.money_days,
            v_old.money_gross, v_old.money_refunded, v_old.money_estimated, v_old.money_unpriced, v_old.money_priced)
           IS DISTINCT FROM
           (v_fresh.first_paid_at, v_fresh.paid_mask, v_fresh.money_months, v_fresh.money_currencies, v_fresh.money_days,
            v_fresh.money_gross, v_fresh.money_refunded, v_fresh.money_estimated, v_fresh.money_unpriced, v_fresh.money_priced)
        THEN
            IF v_old.first_paid_at IS NOT NULL THEN
                v_olds := v_olds || v_old;
            END IF;
            IF v_fresh.first_paid_at IS NOT NULL THEN
                v_news := v_news || v_fresh;
            END IF;
        END IF;
    END LOOP;
    IF cardinality(v_olds) = 0 AND cardinality(v_news) = 0 THEN
        RETURN;
    END IF;
    -- The old rows count -1 and the new ones +1: what did not change cancels out before anything is written.
    INSERT INTO cohort_chain_totals AS t (app_id, cohort, environment, paid_mask, shard, chains)
    SELECT p_app_id, d.cohort, p_environment, d.paid_mask, d.shard, sum(d.n)
    FROM (
        SELECT date_trunc('month', s.first_paid_at AT TIME ZONE 'UTC')::date AS cohort, s.paid_mask,
               (hashtext(s.original_transaction_id) & 15)::smallint AS shard, s.n
        FROM (SELECT o.*, -1 AS n FROM unnest(v_olds) o UNION ALL SELECT o.*, 1 FROM unnest(v_news) o) s
    ) d
    GROUP BY d.cohort, d.paid_mask, d.shard
    HAVING sum(d.n) <> 0
    ORDER BY d.cohort, d.paid_mask, d.shard
    ON CONFLICT (app_id, cohort, environment, paid_mask, shard) DO UPDATE SET chains = t.chains + EXCLUDED.chains;
    INSERT INTO cohort_money_totals AS t
        (app_id, cohort, environment, month, currency, day, shard, gross, refunded, estimated, unpriced, priced)
    SELECT p_app_id, d.cohort, p_environment, d.month, d.currency, d.day, d.shard,
           sum(d.gross), sum(d.refunded), sum(d.estimated), sum(d.unpriced), sum(d.priced)
    FROM (
        SELECT date_trunc('month', s.first_paid_at AT TIME ZONE 'UTC')::date AS cohort, x.month,
               coalesce(x.currency, '') AS currency, x.day, (hashtext(s.original_transaction_id) & 3)::smallint AS shard,
               s.n * x.gross AS gross, s.n * x.refunded AS refunded, s.n * x.estimated AS estimated,
               s.n * x.unpriced AS unpriced, s.n * x.priced AS priced
        FROM (SELECT o.*, -1 AS n FROM unnest(v_olds) o UNION ALL SELECT o.*, 1 FROM unnest(v_news) o) s,
             LATERAL unnest(s.money_months, s.money_currencies, s.money_days, s.money_gross, s.money_refunded,
                            s.money_estimated, s.money_unpriced, s.money_priced)
                 AS x(month, currency, day, gross, refunded, estimated, unpriced, priced)
    ) d
    GROUP BY d.cohort, d.month, d.currency, d.day, d.shard
    HAVING sum(d.gross) <> 0 OR sum(d.refunded) <> 0 OR sum(d.estimated) <> 0 OR sum(d.unpriced) <> 0
        OR sum(d.priced) <> 0
    ORDER BY d.cohort, d.month, d.currency, d.day, d.shard
    ON CONFLICT (app_id, cohort, environment, month, currency, day, shard) DO UPDATE SET
        gross = t.gross + EXCLUDED.gross, refunded = t.refunded + EXCLUDED.refunded,
        estimated = t.estimated + EXCLUDED.estimated, unpriced = t.unpriced + EXCLUDED.unpriced,
        priced = t.priced + EXCLUDED.priced;
END
$$;

-- The totals of the facts that exist when this step runs.
INSERT INTO cohort_chain_totals (app_id, cohort, environment, paid_mask, shard, chains)
SELECT app_id, date_trunc('month', first_paid_at AT TIME ZONE 'UTC')::date, environment, paid_mask,
       (hashtext(original_transaction_id) & 15)::smallint, count(*)
FROM chain_cohort_facts
WHERE first_paid_at IS NOT NULL
GROUP BY 1, 2, 3, 4, 5;
INSERT INTO cohort_money_totals
    (app_id, cohort, environment, month, currency, day, shard, gross, refunded, estimated, unpriced, priced)
SELECT f.app_id, date_trunc('month', f.first_paid_at AT TIME ZONE 'UTC')::date, f.environment, x.month,
       coalesce(x.currency, ''), x.day, (hashtext(f.original_transaction_id) & 3)::smallint,
       sum(x.gross), sum(x.refunded), sum(x.estimated), sum(x.unpriced), sum(x.priced)
FROM chain_cohort_facts f,
     LATERAL unnest(f.money_months, f.money_currencies, f.money_days, f.money_gross, f.money_refunded,
                    f.money_estimated, f.money_unpriced, f.money_priced)
         AS x(month, currency, day, gross, refunded, estimated, unpriced, priced)
WHERE f.first_paid_at IS NOT NULL
GROUP BY 1, 2, 3, 4, 5, 6, 7;
