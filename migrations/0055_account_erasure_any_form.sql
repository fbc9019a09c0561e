-- step 55: account erasures: the id in any form, in the grants' and the audit log's text
-- An erasure replaced an id where it stood as a whole value or a key part, as SubLedger writes it. The text an
-- operator or a client chose could still name it: a grant's reason (in `entitlement_grants` and its ledger entry's
-- `reason`) and its Idempotency-Key, and an audit entry's target as the request sent it (`x%40example.com`, stored
-- percent-encoded before this step; SubLedger now stores the decoded id). From this step on, an erasure replaces the
-- id in those in every form it can take there: as is or in another letter case, each character possibly
-- percent-encoded (`%40`, `%2b` or `%2B`) or JSON-escaped (`\u0040`).
--
-- A grant's reason and key belong to the erased account: the id is replaced wherever it stands between characters
-- that are not letters or digits ("refund for x@example.com", "grant-x@example.com-1"), so "bobby" is not "bob". An
-- audit entry's target value is replaced only when it is the id as a whole, in whatever form: a value naming another
-- account that merely contains the id is left alone.

-- A regular expression matching `p_id` in any of those forms: each letter in either case, each ASCII character also
-- as `%HH` or `\u00HH` (hex digits in either case). Other characters stand for themselves.
CREATE FUNCTION account_erasure_id_pattern(p_id text) RETURNS text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
    v_pattern text := '';
    v_char text;
    v_form text;
    v_forms text;
    v_hex text;
    v_hex_class text;
    v_j integer;
BEGIN
    FOREACH v_char IN ARRAY regexp_split_to_array(p_id, '') LOOP
        v_forms := CASE WHEN v_char ~ '^[A-Za-z0-9]$' THEN v_char ELSE '\' || v_char END;
        IF v_char ~ '^[A-Za-z]$' THEN
            v_forms := upper(v_char) || '|' || lower(v_char);
        END IF;
        -- Each case of the character, percent-encoded and JSON-escaped.
        FOREACH v_form IN ARRAY ARRAY(SELECT DISTINCT c FROM unnest(ARRAY[upper(v_char), lower(v_char)]) AS c) LOOP
            CONTINUE WHEN ascii(v_form) NOT BETWEEN 1 AND 127;
            v_hex := lpad(to_hex(ascii(v_form)), 2, '0');
            v_hex_class := '';
            FOR v_j IN 1 .. 2 LOOP
                v_hex_class := v_hex_class || CASE WHEN substr(v_hex, v_j, 1) ~ '[a-f]'
                    THEN '[' || upper(substr(v_hex, v_j, 1)) || substr(v_hex, v_j, 1) || ']'
                    ELSE substr(v_hex, v_j, 1) END;
            END LOOP;
            v_forms := v_forms || '|%' || v_hex_class || '|\\u00' || v_hex_class;
        END LOOP;
        v_pattern := v_pattern || '(?:' || v_forms || ')';
    END LOOP;
    RETURN v_pattern;
END
$$;

-- A regular expression matching any of `p_ids` in any form, anywhere: the cheap test of a row before its values are
-- looked at one by one.
CREATE FUNCTION account_erasure_any_form(p_ids text[]) RETURNS text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
    RETURN (SELECT string_agg('(?:' || account_erasure_id_pattern(id) || ')', '|') FROM unnest(p_ids) AS id);
END
$$;

-- `p_text` (an operator's or a client's text about the erased account) with each of `p_ids`, in any form, replaced
-- by its pseudonym where it stands between the start or end and characters that are not letters or digits (an
-- escape before it counts as such). Longer ids first, so that an id inside another is not replaced in it first.
CREATE FUNCTION account_erasure_rewrite_text(p_text text, p_ids text[], p_pseudonyms text[]) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    v_i integer;
BEGIN
    IF p_text IS NULL THEN
        RETURN NULL;
    END IF;
    FOR v_i IN SELECT i FROM generate_subscripts(p_ids, 1) AS i ORDER BY length(p_ids[i]) DESC, i LOOP
        p_text := regexp_replace(
            p_text,
            '(^|[^A-Za-z0-9]|%[0-9A-Fa-f]{2}|\\u[0-9A-Fa-f]{4})' || account_erasure_id_pattern(p_ids[v_i])
                || '(?=$|[^A-Za-z0-9])',
            '\1' || replace(p_pseudonyms[v_i], '\', '\\'), 'g');
    END LOOP;
    RETURN p_text;
END
$$;

-- An audit entry's target value: the pseudonym when the value is one of `p_ids` as a whole, in any form; otherwise
-- the value with the ids it names as key parts replaced (`account_erasure_rewrite`).
CREATE FUNCTION account_erasure_rewrite_value(p_value text, p_ids text[], p_pseudonyms text[]) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    v_i integer;
BEGIN
    IF p_value IS NULL THEN
        RETURN NULL;
    END IF;
    FOR v_i IN 1 .. cardinality(p_ids) LOOP
        IF p_value ~ ('^(?:' || account_erasure_id_pattern(p_ids[v_i]) || ')$') THEN
            RETURN p_pseudonyms[v_i];
        END IF;
    END LOOP;
    RETURN account_erasure_rewrite(p_value, p_ids, p_pseudonyms);
END
$$;

-- As in step 48, but the accounts' own entries have their reason rewritten as text (`account_erasure_rewrite_text`).
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
            -- The accounts' own entries: their reason is an operator's text too (a grant's), where the id may stand
            -- in any form; another account's entry (a merge's) names it as a key part only.
            reason = CASE WHEN account_id = ANY (p_ids)
                THEN account_erasure_rewrite_text(account_erasure_rewrite(reason, p_ids, p_pseudonyms), p_ids,
                                                  p_pseudonyms)
                ELSE account_erasure_rewrite(reason, p_ids, p_pseudonyms) END
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

-- As in step 48, then the grants' reasons and keys, and the audit log's targets in any form.
CREATE OR REPLACE FUNCTION account_erase(
    p_app_id bigint, p_ids text[], p_digests bytea[], p_plain_digest bytea, p_actor text, p_now timestamptz
) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
    v_account text := p_ids[1];
    v_erasure_id bigint;
    v_pseudonyms text[];
    v_summary jsonb;
    v_lowered text[];
    v_any_form text;
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

    -- The grants' reasons and idempotency keys are an operator's and a client's text: the id in any form, before
    -- the grants move to the pseudonyms.
    UPDATE entitlement_grants
    SET reason = account_erasure_rewrite_text(reason, p_ids, v_pseudonyms),
        idempotency_key = account_erasure_rewrite_text(idempotency_key, p_ids, v_pseudonyms)
    WHERE app_id = p_app_id AND account_id = ANY (p_ids);
    v_summary := account_erasure_rewrite_chains(v_erasure_id, p_app_id, p_ids, v_pseudonyms, p_now)
        || account_erasure_rewrite_state(p_app_id, p_ids, v_pseudonyms);
    -- The audit log's targets: a value that is an id in any form (as sent, percent-encoded, before step 55 stored
    -- it decoded) becomes its pseudonym; one that names an id as a key part is rewritten as before. Every row is
    -- read (as step 47 read them): first by a cheap test that any form passes (the id in some letter case, or an
    -- escape in the text), and only then by the regular expression (the CASE keeps that order).
    v_lowered := ARRAY(SELECT '%' || lower(id) || '%' FROM unnest(p_ids) AS id);
    v_any_form := account_erasure_any_form(p_ids);
    UPDATE audit_log a SET target = (
        SELECT jsonb_object_agg(m.key, account_erasure_rewrite_value(m.value, p_ids, v_pseudonyms))
        FROM jsonb_each_text(a.target) AS m(key, value))
    WHERE CASE WHEN lower(a.target::text) LIKE ANY (v_lowered) OR strpos(a.target::text, '%') > 0
                    OR strpos(a.target::text, '\') > 0
               THEN a.target::text ~ v_any_form
                   AND EXISTS (SELECT 1 FROM jsonb_each_text(a.target) AS m(key, value)
                               WHERE account_erasure_rewrite_value(m.value, p_ids, v_pseudonyms) IS DISTINCT FROM m.value)
               ELSE false END;
    v_summary := v_summary
        || jsonb_build_object('erasure_id', v_erasure_id, 'pseudonym', v_pseudonyms[1],
                              'aliases', cardinality(p_ids) - 1);
    PERFORM set_config('subledger.erasing', 'off', true);
    RETURN v_summary;
END
$$;

-- As in step 48, and also another account's webhook events whose key (not only whose body) names an id: an
-- ownership transfer's `entitlement.granted` to the account that took a chain from an id carries the transfer entry's
-- key, `transferIn:…:<id>-><account>:…`; and the events of the ids merged into the accounts bound to the ids' chains.
CREATE OR REPLACE FUNCTION account_erasure_rewrite_state(p_app_id bigint, p_ids text[], p_pseudonyms text[])
RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
    v_count bigint;
    v_summary jsonb;
    v_quoted text[] := ARRAY(SELECT '%' || to_json(id)::text || '%' FROM unnest(p_ids) id);
    -- An id as LIKE matches it anywhere (its own `%`, `_` and `\` escaped).
    v_anywhere text[] := ARRAY(
        SELECT '%' || replace(replace(replace(id, '\', '\\'), '%', '\%'), '_', '\_') || '%' FROM unnest(p_ids) id);
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
    -- The ids merged into those accounts: a merge moves what an account holds, not the events it was sent.
    v_accounts := v_accounts || ARRAY(
        SELECT account_id FROM account_aliases WHERE app_id = p_app_id AND merged_into = ANY (v_accounts));
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
      AND (account_id = ANY (p_ids) OR body LIKE ANY (v_quoted) OR idempotency_key LIKE ANY (v_anywhere)
           OR cause_id LIKE ANY (v_anywhere));
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
