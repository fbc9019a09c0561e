-- step 35: what a real Citus cluster needs: the hash chain linked by statements Citus routes, and a replica identity
-- for every distributed table
-- `ledger_chain_link` (step 24) decided whether an input was linked already inside an IF condition (`p IS NOT NULL
-- AND NOT EXISTS (SELECT … FROM ledger_chain_links …)`) under `plan_cache_mode = force_generic_plan`. Citus plans a
-- generic plan with parameters only for a simple statement on one distributed table; it refuses that condition
-- ("could not create distributed plan"). Each look-up is now its own statement on one table filtered by the chain,
-- which Citus's fast path routes to the worker holding the chain, and which plain PostgreSQL plans as before. What
-- the function links, in which order, and the hashes are unchanged.
--
-- Citus moves a shard to another worker (`citus_rebalance_start()`) by logical replication, which needs a replica
-- identity for the rows updated or deleted meanwhile; `account_entitlement_periods`, the one distributed table
-- without a primary key (an account's periods of a chain are replaced whole), identifies its rows by all their
-- columns. On a single PostgreSQL (wal_level replica) this writes nothing more.
ALTER TABLE account_entitlement_periods REPLICA IDENTITY FULL;

CREATE OR REPLACE FUNCTION ledger_chain_link(
    p_app_id bigint, p_environment text, p_chain text, p_receipt_id bigint, p_notification_row_id bigint,
    p_through_entry_id bigint DEFAULT NULL
) RETURNS integer LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
    v_found boolean;
    v_linked boolean;
    v_seq bigint := 0;
    v_last_entry_id bigint := 0;
    v_hash bytea := '\x0000000000000000000000000000000000000000000000000000000000000000'::bytea;
    v_added integer := 0;
    v_fields bytea;
    v_entry ledger_entries;
BEGIN
    SELECT h.seq, h.last_entry_id, h.hash INTO v_seq, v_last_entry_id, v_hash
    FROM ledger_chain_heads h
    WHERE h.app_id = p_app_id AND h.environment = p_environment AND h.original_transaction_id = p_chain
    FOR UPDATE;
    v_found := FOUND;
    IF NOT v_found THEN
        v_seq := 0;
        v_last_entry_id := 0;
        v_hash := '\x0000000000000000000000000000000000000000000000000000000000000000'::bytea;
    END IF;

    IF p_receipt_id IS NOT NULL THEN
        PERFORM FROM ledger_chain_links l
        WHERE l.app_id = p_app_id AND l.environment = p_environment AND l.original_transaction_id = p_chain
          AND l.item_table = 'receipts' AND l.item_id = p_receipt_id;
        v_linked := FOUND;
        IF NOT v_linked THEN
            SELECT ledger_chain_fields(r) INTO v_fields FROM receipts r WHERE r.receipt_id = p_receipt_id;
            IF v_fields IS NOT NULL THEN
                v_seq := v_seq + 1;
                v_hash := sha256(v_hash || v_fields);
                INSERT INTO ledger_chain_links (app_id, environment, original_transaction_id, seq, item_table, item_id,
                    hash)
                VALUES (p_app_id, p_environment, p_chain, v_seq, 'receipts', p_receipt_id, v_hash);
                v_added := v_added + 1;
            END IF;
        END IF;
    END IF;
    IF p_notification_row_id IS NOT NULL THEN
        PERFORM FROM ledger_chain_links l
        WHERE l.app_id = p_app_id AND l.environment = p_environment AND l.original_transaction_id = p_chain
          AND l.item_table = 'notifications' AND l.item_id = p_notification_row_id;
        v_linked := FOUND;
        IF NOT v_linked THEN
            SELECT ledger_chain_fields(n) INTO v_fields FROM notifications n
            WHERE n.notification_row_id = p_notification_row_id;
            IF v_fields IS NOT NULL THEN
                v_seq := v_seq + 1;
                v_hash := sha256(v_hash || v_fields);
                INSERT INTO ledger_chain_links (app_id, environment, original_transaction_id, seq, item_table, item_id,
                    hash)
                VALUES (p_app_id, p_environment, p_chain, v_seq, 'notifications', p_notification_row_id, v_hash);
                v_added := v_added + 1;
            END IF;
        END IF;
    END IF;

    FOR v_entry IN
        SELECT * FROM ledger_entries e
        WHERE e.app_id = p_app_id AND e.environment = p_environment AND e.original_transaction_id = p_chain
          AND e.entry_id > v_last_entry_id AND (p_through_entry_id IS NULL OR e.entry_id <= p_through_entry_id)
        ORDER BY e.entry_id
    LOOP
        v_seq := v_seq + 1;
        v_hash := sha256(v_hash || ledger_chain_fields(v_entry));
        INSERT INTO ledger_chain_links (app_id, environment, original_transaction_id, seq, item_table, item_id, hash)
        VALUES (p_app_id, p_environment, p_chain, v_seq, 'ledger_entries', v_entry.entry_id, v_hash);
        v_last_entry_id := v_entry.entry_id;
        v_added := v_added + 1;
    END LOOP;

    IF v_added > 0 THEN
        IF v_found THEN
            UPDATE ledger_chain_heads SET seq = v_seq, last_entry_id = v_last_entry_id, hash = v_hash, updated_at = now()
            WHERE app_id = p_app_id AND environment = p_environment AND original_transaction_id = p_chain;
        ELSE
            INSERT INTO ledger_chain_heads (app_id, environment, original_transaction_id, seq, last_entry_id, hash)
            VALUES (p_app_id, p_environment, p_chain, v_seq, v_last_entry_id, v_hash);
        END IF;
    END IF;
    RETURN v_added;
END
$$;
