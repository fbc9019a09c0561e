-- step 48: ledger chain: account erasures: erased ids known by a keyed digest; the erasure's lookups index-backed
-- An erased id was known by SHA-256("subledger-account-erasure|" app_id "|" id) (step 47). Account ids are often
-- guessable (an email, a small number), so whoever holds the database could confirm a guess by hashing it. From this
-- step on, an erased id is known by HMAC-SHA256 of the same text under the installation's account erasure key: 32
-- random bytes, created on first need, stored here sealed with the secret keys like the apps' secrets (re-sealed by
-- `subledger secrets rotate-key`), never stored in the clear. SubLedger computes the digest and passes it in; the
-- database cannot compute it.
--
-- Rows erased under step 47 cannot be re-keyed (their ids are gone): they keep their digest under the scheme
-- 'sha256', and a lookup asks for both (the keyed digest among 'hmac-sha256' rows, the plain one among 'sha256'
-- rows). Every erasure from this step on records 'hmac-sha256'.

CREATE TABLE account_erasure_keys (
    singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    key_sealed bytea NOT NULL,
    key_id text NOT NULL CHECK (length(key_id) BETWEEN 1 AND 64),
    created_at timestamptz NOT NULL DEFAULT now()
);
-- One row, read once per process: the coordinator's like the other erasure tables.
COMMENT ON TABLE account_erasure_keys IS 'citus: coordinator';

-- The column and its check in two statements: Citus refuses ADD COLUMN with a constraint on a table it manages.
ALTER TABLE erased_accounts ADD COLUMN digest_scheme text NOT NULL DEFAULT 'sha256';
ALTER TABLE erased_accounts ADD CONSTRAINT erased_accounts_digest_scheme_check
    CHECK (digest_scheme IN ('sha256', 'hmac-sha256'));
ALTER TABLE erased_accounts ALTER COLUMN digest_scheme DROP DEFAULT;

DROP FUNCTION account_erase(bigint, text, text, timestamptz);
DROP FUNCTION account_erasure_digest(bigint, text);

-- Indexes the erasure's lookups use: the links of a submission or a notification (the chains linking one are not
-- known from it: a notification can be linked into several), and the bindings an id was transferred from.
CREATE INDEX index_ledger_chain_links_on_input ON ledger_chain_links (item_table, item_id)
    WHERE item_table IN ('receipts', 'notifications');
CREATE INDEX index_ownership_bindings_on_from_account ON ownership_bindings (app_id, from_account_id)
    WHERE from_account_id IS NOT NULL;
-- An account's submissions (the erasure's rewrite, and its check that a row names the account) and its webhook
-- events in every environment.
CREATE INDEX index_receipts_on_account ON receipts (app_id, account_id) WHERE account_id IS NOT NULL;
CREATE INDEX index_webhook_events_on_account ON webhook_events (app_id, account_id) WHERE account_id IS NOT NULL;
-- The tables whose keys put the environment (or a state) before the account.
CREATE INDEX index_webhook_account_sequences_on_account ON webhook_account_sequences (app_id, account_id);
CREATE INDEX index_orders_on_account ON orders (app_id, account_id);
CREATE INDEX index_store_obligations_on_account ON store_obligations (app_id, account_id);

-- As in step 47, but each link is found by its chain's key (entries) or the inputs' index (submissions and
-- notifications), never by a scan of every link.
CREATE OR REPLACE FUNCTION account_erasure_rewrite_chains(
    p_erasure_id bigint, p_app_id bigint, p_ids text[], p_pseudonyms text[], p_now timestamptz
) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
    v_redacted text := jsonb_build_object('erased', true)::text;
    v_entries bigint[];
    v_entry_environments text[];
    v_entry_chains text[];
    v_receipts bigint[];
    v_notifications bigint[];
    v_environments text[] := '{}';
    v_chains text[] := '{}';
    v_seqs bigint[] := '{}';
    v_tables text[] := '{}';
    v_items bigint[] := '{}';
    v_hashes bytea[] := '{}';
    v_i integer;
    v_link record;
    v_after bytea;
    v_entry ledger_entries;
    v_receipt receipts;
    v_notification notifications;
BEGIN
    v_notifications := ARRAY(
        SELECT DISTINCT l.item_id FROM chains c
    JOIN ledger_chain_links l ON l.app_id = c.app_id AND l.environment = c.environment
        AND l.original_transaction_id = c.original_transaction_id AND l.item_table = 'notifications'
        WHERE c.app_id = p_app_id AND c.owner_account_id = ANY (p_ids));
    WITH rewritten AS (
        UPDATE ledger_entries SET account_id = account_erasure_pseudonym(account_id, p_ids, p_pseudonyms),
            idempotency_key = account_erasure_rewrite(idempotency_key, p_ids, p_pseudonyms),
            reason = account_erasure_rewrite(reason, p_ids, p_pseudonyms)
        WHERE app_id = p_app_id AND (account_id = ANY (p_ids) OR (kind IN ('transfer_in', 'transfer_out', 'credit',
            'debit') AND (environment, original_transaction_id) IN (
                SELECT environment, original_transaction_id FROM ledger_entries
                WHERE app_id = p_app_id AND account_id = ANY (p_ids))
            AND account_erasure_rewrite(idempotency_key, p_ids, p_pseudonyms) <> idempotency_key))
        RETURNING entry_id, environment, original_transaction_id)
    SELECT coalesce(array_agg(entry_id), '{}'), coalesce(array_agg(environment), '{}'),
        coalesce(array_agg(original_transaction_id), '{}')
    INTO v_entries, v_entry_environments, v_entry_chains FROM rewritten;
    WITH rewritten AS (
        UPDATE receipts SET account_id = account_erasure_pseudonym(account_id, p_ids, p_pseudonyms), order_id = NULL,
            body = v_redacted, body_sha256 = sha256(convert_to(v_redacted, 'UTF8')), client_transaction_id = NULL
        WHERE app_id = p_app_id AND account_id = ANY (p_ids) RETURNING receipt_id)
    SELECT coalesce(array_agg(receipt_id), '{}') INTO v_receipts FROM rewritten;
    UPDATE notifications SET body = v_redacted
    WHERE notification_row_id = ANY (v_notifications);

    -- The links, each looked up by its chain's key (one shard on a Citus cluster), then recorded in chain and link
    -- order.
    FOR v_i IN 1 .. cardinality(v_entries) LOOP
        SELECT l.environment, l.original_transaction_id, l.seq, l.item_table, l.item_id, l.hash INTO v_link
        FROM ledger_chain_links l
        WHERE l.app_id = p_app_id AND l.environment = v_entry_environments[v_i]
          AND l.original_transaction_id = v_entry_chains[v_i] AND l.item_table = 'ledger_entries'
          AND l.item_id = v_entries[v_i];
        IF FOUND THEN
            v_environments := v_environments || v_link.environment;
            v_chains := v_chains || v_link.original_transaction_id;
            v_seqs := v_seqs || v_link.seq;
            v_tables := v_tables || v_link.item_table;
            v_items := v_items || v_link.item_id;
            v_hashes := v_hashes || v_link.hash;
        END IF;
    END LOOP;
    FOR v_link IN
        SELECT l.environment, l.original_transaction_id, l.seq, l.item_table, l.item_id, l.hash
        FROM ledger_chain_links l
        WHERE l.item_table = 'receipts' AND l.item_id = ANY (v_receipts)
        UNION ALL
        SELECT l.environment, l.original_transaction_id, l.seq, l.item_table, l.item_id, l.hash
        FROM ledger_chain_links l
        WHERE l.item_table = 'notifications' AND l.item_id = ANY (v_notifications)
    LOOP
        v_environments := v_environments || v_link.environment;
        v_chains := v_chains || v_link.original_transaction_id;
        v_seqs := v_seqs || v_link.seq;
        v_tables := v_tables || v_link.item_table;
        v_items := v_items || v_link.item_id;
        v_hashes := v_hashes || v_link.hash;
    END LOOP;

    FOR v_link IN
        SELECT k.environment, k.original_transaction_id, k.seq, k.item_table, k.item_id, k.hash
        FROM unnest(v_environments, v_chains, v_seqs, v_tables, v_items, v_hashes)
            AS k(environment, original_transaction_id, seq, item_table, item_id, hash)
        ORDER BY 1, 2, 3
    LOOP
        -- The row is read into a variable and hashed here: a whole-row call on a distributed table's alias is not
        -- something Citus can send to a worker.
        IF v_link.item_table = 'ledger_entries' THEN
            SELECT * INTO STRICT v_entry FROM ledger_entries e
            WHERE e.app_id = p_app_id AND e.environment = v_link.environment
              AND e.original_transaction_id = v_link.original_transaction_id AND e.entry_id = v_link.item_id;
            v_after := sha256(ledger_chain_fields(v_entry));
        ELSIF v_link.item_table = 'receipts' THEN
            SELECT * INTO STRICT v_receipt FROM receipts r WHERE r.receipt_id = v_link.item_id;
            v_after := sha256(ledger_chain_fields(v_receipt));
        ELSE
            SELECT * INTO STRICT v_notification FROM notifications n WHERE n.notification_row_id = v_link.item_id;
            v_after := sha256(ledger_chain_fields(v_notification));
        END IF;
        PERFORM account_erasure_link(
            p_erasure_id, p_app_id, v_link.environment, v_link.original_transaction_id, v_link.seq,
            v_link.item_table, v_link.item_id, v_link.hash, v_after, p_now);
    END LOOP;
    RETURN jsonb_build_object('ledger_entries', cardinality(v_entries), 'receipts', cardinality(v_receipts),
                              'notifications', cardinality(v_notifications));
END
$$;

-- As in step 47, with each lookup index-backed: the chains by their owner or, for those the ids were bound to, by
-- their key; the webhook events by their account (the ids', and those of the accounts bound to the ids' chains, the
-- only other events whose bodies can name an id: an ownership transfer's).
CREATE OR REPLACE FUNCTION account_erasure_rewrite_state(p_app_id bigint, p_ids text[], p_pseudonyms text[])
RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
    v_count bigint;
    v_summary jsonb;
    v_quoted text[] := ARRAY(SELECT '%' || to_json(id)::text || '%' FROM unnest(p_ids) id);
    v_chain_environments text[];
    v_chain_keys text[];
    v_accounts text[];
    v_i integer;
BEGIN
    v_summary := jsonb_build_object('environments', to_jsonb(ARRAY(
        SELECT DISTINCT environment FROM chains WHERE app_id = p_app_id AND owner_account_id = ANY (p_ids)
        ORDER BY 1)));
    SELECT coalesce(array_agg(environment), '{}'), coalesce(array_agg(original_transaction_id), '{}')
    INTO v_chain_environments, v_chain_keys
    FROM (SELECT environment, original_transaction_id FROM chains
          WHERE app_id = p_app_id AND owner_account_id = ANY (p_ids)
          UNION
          SELECT environment, original_transaction_id FROM ownership_bindings
          WHERE app_id = p_app_id AND account_id = ANY (p_ids)
          UNION
          SELECT environment, original_transaction_id FROM ownership_bindings
          WHERE app_id = p_app_id AND from_account_id = ANY (p_ids)) k;
    -- Each chain by its key (one shard on a Citus cluster), with the accounts bound to it: their events are the
    -- others that may name an id (an ownership transfer's).
    v_accounts := p_ids;
    v_count := 0;
    FOR v_i IN 1 .. cardinality(v_chain_keys) LOOP
        v_accounts := v_accounts || ARRAY(
            SELECT b.account_id FROM ownership_bindings b
            WHERE b.app_id = p_app_id AND b.environment = v_chain_environments[v_i]
              AND b.original_transaction_id = v_chain_keys[v_i] AND b.account_id IS NOT NULL);
        UPDATE chains SET owner_account_id = account_erasure_pseudonym(owner_account_id, p_ids, p_pseudonyms),
            snapshot = account_erasure_rewrite(account_erasure_strip(snapshot)::text, p_ids, p_pseudonyms)::jsonb
        WHERE app_id = p_app_id AND environment = v_chain_environments[v_i]
          AND original_transaction_id = v_chain_keys[v_i];
        v_count := v_count + 1;
    END LOOP;
    v_summary := v_summary || jsonb_build_object('chains', v_count);
    UPDATE ownership_bindings SET account_id = account_erasure_pseudonym(account_id, p_ids, p_pseudonyms),
        from_account_id = account_erasure_pseudonym(from_account_id, p_ids, p_pseudonyms)
    WHERE app_id = p_app_id AND (account_id = ANY (p_ids) OR from_account_id = ANY (p_ids));
    UPDATE transactions SET account_id = account_erasure_pseudonym(account_id, p_ids, p_pseudonyms),
        app_account_token = NULL,
        payload = account_erasure_rewrite(account_erasure_strip(payload)::text, p_ids, p_pseudonyms)::jsonb
    WHERE app_id = p_app_id AND account_id = ANY (p_ids);
    GET DIAGNOSTICS v_count = ROW_COUNT;
    v_summary := v_summary || jsonb_build_object('transactions', v_count);
    DELETE FROM account_tokens WHERE app_id = p_app_id AND account_id = ANY (p_ids);
    GET DIAGNOSTICS v_count = ROW_COUNT;
    v_summary := v_summary || jsonb_build_object('app_account_tokens', v_count);
    DELETE FROM orders WHERE app_id = p_app_id AND account_id = ANY (p_ids);
    GET DIAGNOSTICS v_count = ROW_COUNT;
    v_summary := v_summary || jsonb_build_object('orders', v_count);
    UPDATE store_obligations SET account_id = account_erasure_pseudonym(account_id, p_ids, p_pseudonyms)
    WHERE app_id = p_app_id AND account_id = ANY (p_ids);
    UPDATE app_transaction_claims SET account_id = account_erasure_pseudonym(account_id, p_ids, p_pseudonyms)
    WHERE app_id = p_app_id AND account_id = ANY (p_ids);
    -- An import run names no app (its rows' transactions do): the rows of every run that name the ids.
    UPDATE import_rows SET account_id = account_erasure_pseudonym(account_id, p_ids, p_pseudonyms)
    WHERE account_id = ANY (p_ids);
    -- Webhook events, delivered or not (those not delivered yet go out with the pseudonym): account, key, body.
    UPDATE webhook_events SET account_id = account_erasure_pseudonym(account_id, p_ids, p_pseudonyms),
        idempotency_key = account_erasure_rewrite(idempotency_key, p_ids, p_pseudonyms),
        cause_id = account_erasure_rewrite(cause_id, p_ids, p_pseudonyms),
        body = account_erasure_rewrite(body, p_ids, p_pseudonyms)
    WHERE app_id = p_app_id AND account_id = ANY (v_accounts)
      AND (account_id = ANY (p_ids) OR body LIKE ANY (v_quoted));
    GET DIAGNOSTICS v_count = ROW_COUNT;
    v_summary := v_summary || jsonb_build_object('webhook_events', v_count);
    UPDATE consumption_request_attempts
    SET body = account_erasure_rewrite(body::text, p_ids, p_pseudonyms)::jsonb
    WHERE body IS NOT NULL AND body::text LIKE ANY (v_quoted);
    UPDATE audit_log SET target = account_erasure_rewrite(target::text, p_ids, p_pseudonyms)::jsonb
    WHERE target::text LIKE ANY (v_quoted);

    -- The tables distributed by account_id: the accounts' rows first (the consumption reports reference them).
    INSERT INTO accounts (app_id, account_id) SELECT p_app_id, unnest(p_pseudonyms) ON CONFLICT DO NOTHING;
    PERFORM account_erasure_move('consumption_consents', p_app_id, p_ids, p_pseudonyms);
    PERFORM account_erasure_move('consumption_usage_reports', p_app_id, p_ids, p_pseudonyms);
    v_summary := v_summary || jsonb_build_object(
        'grants', account_erasure_move('entitlement_grants', p_app_id, p_ids, p_pseudonyms));
    PERFORM account_erasure_move('account_credit_entries', p_app_id, p_ids, p_pseudonyms);
    PERFORM account_erasure_move('account_entitlement_periods', p_app_id, p_ids, p_pseudonyms);
    PERFORM account_erasure_move('account_entitlement_backfill', p_app_id, p_ids, p_pseudonyms);
    PERFORM account_erasure_move('webhook_account_sequences', p_app_id, p_ids, p_pseudonyms);
    DELETE FROM accounts WHERE app_id = p_app_id AND account_id = ANY (p_ids);
    RETURN v_summary;
END
$$;

-- Erases the ids `p_ids` of app `p_app_id` (the account's first, then the ids merged into it, as the caller read them
-- under the account's exclusive lock), known from now on by the keyed digests `p_digests` (in the same order), by
-- `p_actor` at `p_now`, in the caller's transaction. `p_plain_digest` is the account's digest as step 47 recorded
-- it. Returns NULL when the account was erased before (by either digest), '{}' when no row of the app knows it, else
-- the summary: {"erasure_id", "pseudonym" (the account's), "aliases", "environments" (of the chains it owned), counts
-- by what was rewritten or removed}.
CREATE FUNCTION account_erase(
    p_app_id bigint, p_ids text[], p_digests bytea[], p_plain_digest bytea, p_actor text, p_now timestamptz
) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
    v_account text := p_ids[1];
    v_erasure_id bigint;
    v_pseudonyms text[];
    v_summary jsonb;
BEGIN
    IF cardinality(p_ids) IS DISTINCT FROM cardinality(p_digests) OR cardinality(p_ids) < 1 THEN
        RAISE EXCEPTION 'account_erase: one digest per id' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF p_ids[2:] IS DISTINCT FROM ARRAY(
        SELECT account_id FROM account_aliases WHERE app_id = p_app_id AND merged_into = v_account
        ORDER BY account_id)
    THEN
        RAISE EXCEPTION 'account_erase: the ids merged into the account changed' USING ERRCODE = 'serialization_failure';
    END IF;
    IF EXISTS (SELECT 1 FROM erased_accounts WHERE app_id = p_app_id
               AND (account_digest = p_digests[1] AND digest_scheme = 'hmac-sha256'
                    OR account_digest = p_plain_digest AND digest_scheme = 'sha256')) THEN
        RETURN NULL;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM accounts WHERE app_id = p_app_id AND account_id = v_account)
        AND NOT EXISTS (SELECT 1 FROM account_aliases WHERE app_id = p_app_id AND account_id = v_account)
        AND NOT EXISTS (SELECT 1 FROM ledger_entries WHERE app_id = p_app_id AND account_id = v_account)
        AND NOT EXISTS (SELECT 1 FROM receipts WHERE app_id = p_app_id AND account_id = v_account) THEN
        RETURN '{}';
    END IF;
    PERFORM set_config('subledger.erasing', 'on', true);
    v_pseudonyms := ARRAY(SELECT 'erased-' || gen_random_uuid()::text FROM unnest(p_ids));

    INSERT INTO account_erasures (app_id, pseudonym, erased_by, erased_at)
    VALUES (p_app_id, v_pseudonyms[1], p_actor, p_now) RETURNING erasure_id INTO v_erasure_id;
    INSERT INTO erased_accounts (app_id, account_digest, erasure_id, pseudonym, digest_scheme)
    SELECT p_app_id, p_digests[i], v_erasure_id, v_pseudonyms[i], 'hmac-sha256'
    FROM generate_subscripts(p_ids, 1) AS i;
    DELETE FROM account_aliases
    WHERE app_id = p_app_id AND (account_id = ANY (p_ids) OR merged_into = ANY (p_ids));

    v_summary := account_erasure_rewrite_chains(v_erasure_id, p_app_id, p_ids, v_pseudonyms, p_now)
        || account_erasure_rewrite_state(p_app_id, p_ids, v_pseudonyms)
        || jsonb_build_object('erasure_id', v_erasure_id, 'pseudonym', v_pseudonyms[1],
                              'aliases', cardinality(p_ids) - 1);
    PERFORM set_config('subledger.erasing', 'off', true);
    RETURN v_summary;
END
$$;
