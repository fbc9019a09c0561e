-- step 36: the report projector's refreshes touch the per-chain aggregates one chain at a time, so that a Citus
-- cluster routes each of their statements to the one worker holding the chain
-- The money refresh was one statement from the projector over all the batch's chains (`unnest` of the chains joined
-- to the per-chain tables), and the operational refresh counted the new entries of all the batch's chains in one
-- statement: both read and wrote the tables distributed by `original_transaction_id` for many chains at once, and
-- wrote the totals (coordinator tables) in the same statement, which Citus does not plan. Now every statement on
-- a per-chain table names one chain, and the totals are written once at the end from what the loop gathered (in key
-- order, as before, so that concurrent projections lock shared rows in one order). The rows written are the same as
-- before: new rows computed by the same functions, unchanged rows not written, the totals changed by the new rows
-- counted once and the old ones taken away. A per-chain table is read only by `SELECT … INTO` statements with the
-- chain's key as their only values, and written with keys passed as arrays of scalars: Citus sends such statements
-- to the worker as they are, where a row-typed value would name the coordinator's row type, not the shard's.

-- The money aggregates of `p_chains` (step 19's tables, step 22's day totals): per chain, its `chain_money_facts`
-- rows computed afresh by `chain_money_facts_of` and compared with the stored ones, then its MRR moves and steps
-- computed from them; rows that changed written, rows no longer computed deleted. The revenue day totals change by
-- the difference of the chains whose facts changed.
CREATE FUNCTION chain_money_facts_refresh(p_app_id bigint, p_environment text, p_chains text[])
RETURNS void LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
    v_chain text;
    v_fresh chain_money_facts[];
    v_stored chain_money_facts[];
    v_moves chain_mrr_moves[];
    v_stored_moves chain_mrr_moves[];
    v_steps chain_mrr_steps[];
    v_stored_steps chain_mrr_steps[];
    v_ids text[];
    v_months date[];
    v_instants bigint[];
    v_currencies text[];
    v_added chain_money_facts[] := '{}';
    v_removed chain_money_facts[] := '{}';
BEGIN
    FOREACH v_chain IN ARRAY coalesce(p_chains, '{}') LOOP
        SELECT ARRAY(SELECT f FROM chain_money_facts_of(p_app_id, p_environment, v_chain) f ORDER BY f.transaction_id)
        INTO v_fresh;
        SELECT ARRAY(
            SELECT g FROM chain_money_facts g
            WHERE g.app_id = p_app_id AND g.environment = p_environment AND g.original_transaction_id = v_chain
            ORDER BY g.transaction_id)
        INTO v_stored;
        IF v_fresh IS DISTINCT FROM v_stored THEN
            v_added := v_added || v_fresh;
            v_removed := v_removed || v_stored;
            v_ids := ARRAY(SELECT f.transaction_id FROM unnest(v_fresh) f);
            DELETE FROM chain_money_facts g
            WHERE g.app_id = p_app_id AND g.environment = p_environment AND g.original_transaction_id = v_chain
              AND NOT (g.transaction_id = ANY (v_ids));
            INSERT INTO chain_money_facts
            SELECT * FROM unnest(v_fresh) EXCEPT ALL SELECT * FROM unnest(v_stored)
            ON CONFLICT (app_id, environment, original_transaction_id, transaction_id) DO UPDATE SET
                product_id = EXCLUDED.product_id, purchase_ms = EXCLUDED.purchase_ms, expires_ms = EXCLUDED.expires_ms,
                served_until_ms = EXCLUDED.served_until_ms, refund_ms = EXCLUDED.refund_ms,
                credit_ms = EXCLUDED.credit_ms, credit_milli = EXCLUDED.credit_milli,
                amount_milli = EXCLUDED.amount_milli, currency = EXCLUDED.currency, storefront = EXCLUDED.storefront,
                estimated = EXCLUDED.estimated, second_year = EXCLUDED.second_year,
                monthly_milli = EXCLUDED.monthly_milli, first_paid_ms = EXCLUDED.first_paid_ms,
                refund_milli = EXCLUDED.refund_milli, committed = EXCLUDED.committed;
        END IF;
        -- The moves and steps follow from the facts alone, but are compared even when the facts did not change:
        -- a schema step that changes how they are computed queues the chains without changing their facts.
        IF cardinality(v_fresh) = 0 THEN
            v_moves := '{}';
            v_steps := '{}';
        ELSE
            v_moves := ARRAY(SELECT m FROM chain_mrr_moves_from(v_fresh) m ORDER BY m.month, m.currency);
            v_steps := ARRAY(SELECT s FROM chain_mrr_steps_from(v_fresh) s ORDER BY s.at_ms, s.currency);
        END IF;
        SELECT ARRAY(
            SELECT g FROM chain_mrr_moves g
            WHERE g.app_id = p_app_id AND g.environment = p_environment AND g.original_transaction_id = v_chain
            ORDER BY g.month, g.currency)
        INTO v_stored_moves;
        IF v_moves IS DISTINCT FROM v_stored_moves THEN
            v_months := ARRAY(SELECT m.month FROM unnest(v_moves) m);
            v_currencies := ARRAY(SELECT m.currency FROM unnest(v_moves) m);
            DELETE FROM chain_mrr_moves g
            WHERE g.app_id = p_app_id AND g.environment = p_environment AND g.original_transaction_id = v_chain
              AND NOT EXISTS (SELECT FROM unnest(v_months, v_currencies) k(month, currency)
                              WHERE k.month = g.month AND k.currency = g.currency);
            INSERT INTO chain_mrr_moves SELECT * FROM unnest(v_moves)
            ON CONFLICT (app_id, environment, original_transaction_id, month, currency) DO UPDATE SET
                mrr_delta = EXCLUDED.mrr_delta, subscribers_delta = EXCLUDED.subscribers_delta,
                estimated_delta = EXCLUDED.estimated_delta, new_milli = EXCLUDED.new_milli,
                expansion_milli = EXCLUDED.expansion_milli, contraction_milli = EXCLUDED.contraction_milli,
                churned_milli = EXCLUDED.churned_milli, reactivation_milli = EXCLUDED.reactivation_milli,
                committed_mrr_delta = EXCLUDED.committed_mrr_delta,
                committed_subscribers_delta = EXCLUDED.committed_subscribers_delta
            WHERE (chain_mrr_moves.*) IS DISTINCT FROM (EXCLUDED.*);
        END IF;
        SELECT ARRAY(
            SELECT g FROM chain_mrr_steps g
            WHERE g.app_id = p_app_id AND g.environment = p_environment AND g.original_transaction_id = v_chain
            ORDER BY g.at_ms, g.currency)
        INTO v_stored_steps;
        IF v_steps IS DISTINCT FROM v_stored_steps THEN
            v_instants := ARRAY(SELECT s.at_ms FROM unnest(v_steps) s);
            v_currencies := ARRAY(SELECT s.currency FROM unnest(v_steps) s);
            DELETE FROM chain_mrr_steps g
            WHERE g.app_id = p_app_id AND g.environment = p_environment AND g.original_transaction_id = v_chain
              AND NOT EXISTS (SELECT FROM unnest(v_instants, v_currencies) k(at_ms, currency)
                              WHERE k.at_ms = g.at_ms AND k.currency = g.currency);
            INSERT INTO chain_mrr_steps SELECT * FROM unnest(v_steps)
            ON CONFLICT (app_id, environment, original_transaction_id, at_ms, currency) DO UPDATE SET
                mrr_delta = EXCLUDED.mrr_delta, subscribers_delta = EXCLUDED.subscribers_delta,
                estimated_delta = EXCLUDED.estimated_delta, first_paid_ms = EXCLUDED.first_paid_ms,
                committed_mrr_delta = EXCLUDED.committed_mrr_delta,
                committed_subscribers_delta = EXCLUDED.committed_subscribers_delta
            WHERE (chain_mrr_steps.*) IS DISTINCT FROM (EXCLUDED.*);
        END IF;
    END LOOP;
    IF cardinality(v_added) = 0 AND cardinality(v_removed) = 0 THEN
        RETURN;
    END IF;
    INSERT INTO revenue_day_totals AS t
    SELECT x.app_id, d.day, x.environment, d.kind, d.bought_day, x.product_id, x.storefront, x.currency,
        d.amount_milli, x.second_year, d.estimated, (hashtext(x.original_transaction_id) & 15)::smallint,
        sum(x.sign)::bigint
    FROM (
        SELECT 1 AS sign, f.* FROM unnest(v_added) f
        UNION ALL
        SELECT -1, o.* FROM unnest(v_removed) o
    ) x
    CROSS JOIN LATERAL revenue_day_rows_of(
        x.purchase_ms, x.refund_ms, x.refund_milli, x.credit_ms, x.credit_milli, x.amount_milli, x.estimated) d
    GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12
    HAVING sum(x.sign) <> 0
    ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12
    ON CONFLICT (app_id, day, environment, kind, bought_day, product_id, storefront, currency, amount_milli,
        second_year, estimated, shard)
    DO UPDATE SET sales = t.sales + EXCLUDED.sales;
END
$$;

-- Step 23's operational refresh with the entries not counted yet read per chain: each chain's spans as before, then
-- its entries after `counted_through` (the mark moved to the last of them), the day counts written once at the end.
CREATE OR REPLACE FUNCTION chain_report_spans_refresh(p_app_id bigint, p_environment text, p_chains text[])
RETURNS void LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
    v_chain text;
    v_fresh chain_report_spans[];
    v_stored chain_report_spans[];
    v_span_kinds text[];
    v_span_seqs integer[];
    v_counted bigint;
    v_last bigint;
    v_entry record;
    v_kinds text[] := '{}';
    v_days integer[] := '{}';
    v_products text[] := '{}';
    v_shards smallint[] := '{}';
BEGIN
    FOREACH v_chain IN ARRAY coalesce(p_chains, '{}') LOOP
        SELECT ARRAY(SELECT f FROM chain_report_spans_of(p_app_id, p_environment, v_chain) f ORDER BY f.kind, f.seq)
        INTO v_fresh;
        SELECT ARRAY(
            SELECT s FROM chain_report_spans s
            WHERE s.app_id = p_app_id AND s.environment = p_environment AND s.original_transaction_id = v_chain
            ORDER BY s.kind, s.seq)
        INTO v_stored;
        -- Arrays of rows compare element by element, a NULL column equal to a NULL column.
        IF v_fresh IS DISTINCT FROM v_stored THEN
            v_span_kinds := ARRAY(SELECT f.kind FROM unnest(v_fresh) f);
            v_span_seqs := ARRAY(SELECT f.seq FROM unnest(v_fresh) f);
            DELETE FROM chain_report_spans g
            WHERE g.app_id = p_app_id AND g.environment = p_environment AND g.original_transaction_id = v_chain
              AND NOT EXISTS (SELECT FROM unnest(v_span_kinds, v_span_seqs) k(kind, seq)
                              WHERE k.kind = g.kind AND k.seq = g.seq);
            INSERT INTO chain_report_spans
            SELECT * FROM unnest(v_fresh) EXCEPT ALL SELECT * FROM unnest(v_stored)
            ON CONFLICT (app_id, environment, original_transaction_id, kind, seq) DO UPDATE SET
                starts_at = EXCLUDED.starts_at, ends_at = EXCLUDED.ends_at, product_id = EXCLUDED.product_id,
                detail = EXCLUDED.detail;
        END IF;
        v_counted := NULL;
        SELECT w.counted_through INTO v_counted FROM chain_entries_counted w
        WHERE w.app_id = p_app_id AND w.environment = p_environment AND w.original_transaction_id = v_chain;
        v_last := NULL;
        FOR v_entry IN
            SELECT e.entry_id, e.kind, e.product_id, e.reason, e.effective_at FROM ledger_entries e
            WHERE e.app_id = p_app_id AND e.environment = p_environment AND e.original_transaction_id = v_chain
              AND e.entry_id > coalesce(v_counted, 0)
        LOOP
            v_last := greatest(v_last, v_entry.entry_id);
            IF v_entry.kind IN ('grant', 'extend') OR (v_entry.kind = 'revoke' AND v_entry.reason = 'refund') THEN
                v_kinds := v_kinds || v_entry.kind;
                v_days := v_days || floor(date_part('epoch', v_entry.effective_at) / 86400)::integer;
                v_products := v_products || CASE WHEN v_entry.kind = 'extend' THEN '' ELSE v_entry.product_id END;
                v_shards := v_shards || (hashtext(v_chain) & 15)::smallint;
            END IF;
        END LOOP;
        IF v_last IS NOT NULL THEN
            INSERT INTO chain_entries_counted VALUES (p_app_id, p_environment, v_chain, v_last)
            ON CONFLICT (app_id, environment, original_transaction_id) DO UPDATE SET
                counted_through = EXCLUDED.counted_through;
        END IF;
    END LOOP;
    IF cardinality(v_kinds) = 0 THEN
        RETURN;
    END IF;
    INSERT INTO ledger_entry_day_counts AS k
    SELECT p_app_id, u.kind, u.day, p_environment, u.product_id, u.shard, count(*)
    FROM unnest(v_kinds, v_days, v_products, v_shards) AS u(kind, day, product_id, shard)
    GROUP BY 2, 3, 5, 6
    ORDER BY 2, 3, 5, 6
    ON CONFLICT (app_id, kind, day, environment, product_id, shard) DO UPDATE SET entries = k.entries + EXCLUDED.entries;
END
$$;
