-- step 18: ingestion: each apply refreshes cohort facts with plans its connection keeps; notification bodies in lz4
-- The rows of `chain_cohort_facts` of chains `p_chains` of one app and environment, recomputed from their
-- transactions by `chain_cohort_facts_of` (unchanged): written where the chain has a payment or an offer, deleted
-- where it has neither, as step 17's refresh statement does, and left as they are where nothing changed (no new
-- row version, no index entries). `LedgerStore.apply` calls it for the chains it wrote, in its transaction, with
-- the chains locked. PL/pgSQL keeps each statement's plan for the connection's life: the same query inlined into
-- the apply's prepared statement was planned again on every apply (the array of chains makes PostgreSQL prefer a
-- custom plan), and planning it cost several times what running it does.
CREATE FUNCTION chain_cohort_facts_refresh(p_app_id bigint, p_environment text, p_chains text[])
RETURNS void LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
    v_chain text;
    v_fresh chain_cohort_facts;
BEGIN
    FOREACH v_chain IN ARRAY coalesce(p_chains, '{}') LOOP
        SELECT * INTO STRICT v_fresh FROM chain_cohort_facts_of(p_app_id, p_environment, v_chain);
        IF v_fresh.first_paid_at IS NULL AND v_fresh.offer_started_at IS NULL THEN
            DELETE FROM chain_cohort_facts
            WHERE app_id = p_app_id AND environment = p_environment AND original_transaction_id = v_chain;
        ELSE
            INSERT INTO chain_cohort_facts VALUES (v_fresh.*)
            ON CONFLICT (app_id, environment, original_transaction_id) DO UPDATE SET
                first_paid_at = EXCLUDED.first_paid_at, paid_mask = EXCLUDED.paid_mask,
                money_months = EXCLUDED.money_months, money_currencies = EXCLUDED.money_currencies,
                money_days = EXCLUDED.money_days, money_gross = EXCLUDED.money_gross,
                money_refunded = EXCLUDED.money_refunded, money_estimated = EXCLUDED.money_estimated,
                money_unpriced = EXCLUDED.money_unpriced, money_priced = EXCLUDED.money_priced,
                offer_started_at = EXCLUDED.offer_started_at, offer_product_id = EXCLUDED.offer_product_id,
                offer_is_trial = EXCLUDED.offer_is_trial, offer_converted = EXCLUDED.offer_converted,
                offer_running_until = EXCLUDED.offer_running_until
            WHERE (chain_cohort_facts.*) IS DISTINCT FROM (EXCLUDED.*);
        END IF;
    END LOOP;
END
$$;

-- A notification's body is Apple's signed JWS in base64, which pglz (the default) tries to compress and gives up on
-- (it saves less than a quarter): storing each notification paid for the attempt. lz4, where the server has it,
-- compresses the same bodies by about a third, several times faster. New rows only; nothing is rewritten.
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)) THEN
        ALTER TABLE notifications ALTER COLUMN body SET COMPRESSION lz4;
    END IF;
END
$$;
