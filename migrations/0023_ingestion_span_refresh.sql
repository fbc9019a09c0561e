-- step 23: ingestion: each apply refreshes operational spans and day counts with plans its connection keeps, writing only the spans that changed
-- What step 20's refresh statement did for the chains of one apply, as a function whose statements keep their plans
-- for the connection's life (step 18 did the same for the cohort facts). Per chain, the spans are computed afresh by
-- `chain_report_spans_of` (unchanged: the rows are the same) and compared with the stored ones first: a chain whose
-- spans did not change (a renewal preference, a billing retry, a notification already applied) is not written at
-- all, where step 20's upsert locked, and so rewrote, every span of it; otherwise only the spans that differ are
-- deleted, inserted or updated (a renewal moves the end of the chain's last granting and in-force spans). The
-- entries after each chain's `counted_through` are then added to `ledger_entry_day_counts` in key order, as before.
CREATE OR REPLACE FUNCTION chain_report_spans_refresh(p_app_id bigint, p_environment text, p_chains text[])
RETURNS void LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
    v_chain text;
    v_fresh chain_report_spans[];
    v_stored chain_report_spans[];
BEGIN
    FOREACH v_chain IN ARRAY coalesce(p_chains, '{}') LOOP
        SELECT coalesce(array_agg(f ORDER BY f.kind, f.seq), '{}') INTO v_fresh
        FROM chain_report_spans_of(p_app_id, p_environment, v_chain) f;
        SELECT coalesce(array_agg(s ORDER BY s.kind, s.seq), '{}') INTO v_stored
        FROM chain_report_spans s
        WHERE s.app_id = p_app_id AND s.environment = p_environment AND s.original_transaction_id = v_chain;
        -- Arrays of rows compare element by element, a NULL column equal to a NULL column.
        CONTINUE WHEN v_fresh = v_stored;
        DELETE FROM chain_report_spans g
        WHERE g.app_id = p_app_id AND g.environment = p_environment AND g.original_transaction_id = v_chain
          AND (g.kind, g.seq) NOT IN (SELECT f.kind, f.seq FROM unnest(v_fresh) f);
        INSERT INTO chain_report_spans
        SELECT * FROM unnest(v_fresh) EXCEPT ALL SELECT * FROM unnest(v_stored)
        ON CONFLICT (app_id, environment, original_transaction_id, kind, seq) DO UPDATE SET
            starts_at = EXCLUDED.starts_at, ends_at = EXCLUDED.ends_at, product_id = EXCLUDED.product_id,
            detail = EXCLUDED.detail;
    END LOOP;
    WITH uncounted AS MATERIALIZED (
        SELECT e.entry_id, e.original_transaction_id, e.kind, e.product_id, e.reason, e.effective_at
        FROM unnest(p_chains) AS c(chain)
        LEFT JOIN chain_entries_counted w
            ON w.app_id = p_app_id AND w.environment = p_environment AND w.original_transaction_id = c.chain
        JOIN ledger_entries e
            ON e.app_id = p_app_id AND e.environment = p_environment AND e.original_transaction_id = c.chain
           AND e.entry_id > coalesce(w.counted_through, 0)
    ),
    marks AS (
        INSERT INTO chain_entries_counted
        SELECT p_app_id, p_environment, u.original_transaction_id, max(u.entry_id)
        FROM uncounted u GROUP BY u.original_transaction_id
        ON CONFLICT (app_id, environment, original_transaction_id) DO UPDATE SET
            counted_through = EXCLUDED.counted_through
    )
    INSERT INTO ledger_entry_day_counts AS k
    SELECT p_app_id, u.kind, floor(date_part('epoch', u.effective_at) / 86400)::integer, p_environment,
           CASE WHEN u.kind = 'extend' THEN '' ELSE u.product_id END,
           (hashtext(u.original_transaction_id) & 15)::smallint, count(*)
    FROM uncounted u
    WHERE u.kind IN ('grant', 'extend') OR (u.kind = 'revoke' AND u.reason = 'refund')
    GROUP BY 2, 3, 5, 6
    ORDER BY 2, 3, 5, 6
    ON CONFLICT (app_id, kind, day, environment, product_id, shard) DO UPDATE SET entries = k.entries + EXCLUDED.entries;
END
$$;
