-- step 22: revenue: per-day totals of the sales, refunds and upgrade credits the report groups, kept by every apply
-- `revenue`: what a UTC day holds, counted per app, environment, day, kind (0: a sale on its purchase day, 1: the
-- refund of a priced sale on its refund day, 2: an upgrade credit on the upgrade's day) and everything the report
-- groups a row by or computes its split from: the purchase day (`bought_day`: the Small Business Program and tax
-- are read on it), product, storefront, currency, the amount (the price, or the credit; NULL: unpriced),
-- `second_year` and `estimated` (what `ReportStore.revenueGroups` reads from `chain_money_facts`). Days are
-- `floor(ms / 86400000)`. In 16 shards by chain (`hashtext(original_transaction_id) & 15`) so that concurrent
-- applies renewing the same product on the same day rarely wait on one another's row. The refresh statement of
-- `chain_money_facts` (`ChainMoneyFactsRows`) adds the difference between the chains' old and new facts rows
-- (ON CONFLICT ... sales + n, in key order), so a count may reach 0 and stay; the report sums the whole days of
-- its range from here and reads the partial days at its edges from `chain_money_facts`. The key's NULLs (no
-- storefront, currency or amount) are equal to one another: NULLS NOT DISTINCT (PostgreSQL 15).
CREATE TABLE revenue_day_totals (
    app_id                  bigint NOT NULL,
    day                     integer NOT NULL,
    environment             text NOT NULL,
    kind                    smallint NOT NULL,
    bought_day              integer NOT NULL,
    product_id              text NOT NULL,
    storefront              text,
    currency                text,
    amount_milli            bigint,
    second_year             boolean NOT NULL,
    estimated               boolean NOT NULL,
    shard                   smallint NOT NULL,
    sales                   bigint NOT NULL,
    CONSTRAINT revenue_day_totals_key UNIQUE NULLS NOT DISTINCT (app_id, day, environment, kind, bought_day, product_id,
        storefront, currency, amount_milli, second_year, estimated, shard)
);
COMMENT ON TABLE revenue_day_totals IS 'citus: coordinator';

-- The UTC day of an instant in milliseconds since 1970 (floor, also before 1970).
CREATE FUNCTION revenue_day_of(p_ms bigint) RETURNS integer LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
SELECT (p_ms / 86400000 - CASE WHEN p_ms % 86400000 < 0 THEN 1 ELSE 0 END)::integer
$$;

-- What one `chain_money_facts` row counts in `revenue_day_totals`: its sale, the refund of a priced sale, an upgrade
-- credit (estimated), each on its day (the columns the row shares with its facts row are the caller's).
CREATE FUNCTION revenue_day_rows_of(
    p_purchase_ms bigint, p_refund_ms bigint, p_credit_ms bigint, p_credit_milli bigint, p_amount_milli bigint,
    p_estimated boolean)
RETURNS TABLE (kind smallint, day integer, bought_day integer, amount_milli bigint, estimated boolean)
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
SELECT 0::smallint, revenue_day_of(p_purchase_ms), revenue_day_of(p_purchase_ms), p_amount_milli, p_estimated
UNION ALL
SELECT 1::smallint, revenue_day_of(p_refund_ms), revenue_day_of(p_purchase_ms), p_amount_milli, p_estimated
WHERE p_refund_ms IS NOT NULL AND p_amount_milli > 0
UNION ALL
SELECT 2::smallint, revenue_day_of(p_credit_ms), revenue_day_of(p_purchase_ms), p_credit_milli, true
WHERE p_credit_ms IS NOT NULL
$$;

-- The facts of the chains that exist when this step runs.
INSERT INTO revenue_day_totals
SELECT f.app_id, d.day, f.environment, d.kind, d.bought_day, f.product_id, f.storefront, f.currency, d.amount_milli,
       f.second_year, d.estimated, (hashtext(f.original_transaction_id) & 15)::smallint, count(*)
FROM chain_money_facts f
CROSS JOIN LATERAL revenue_day_rows_of(f.purchase_ms, f.refund_ms, f.credit_ms, f.credit_milli, f.amount_milli, f.estimated) d
GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12;
