-- step 47: ledger chain: account erasures, an account's identifiers replaced by pseudonyms, every chain provable
-- An erasure (docs/guides/accounts.md, "Erasing an account") replaces, in one transaction, an account id of an app
-- (and the ids merged into it) by random pseudonyms `erased-<uuid>` wherever a row stores it, removes its app
-- account tokens, orders and aliases, and replaces the raw inputs that carry its identifiers (its submissions, the
-- notifications of the chains it owns) by a redacted body. What was erased is recognised later by a digest only:
-- `erased_accounts` holds SHA-256("subledger-account-erasure|" app_id "|" id), never the id.
--
-- Rows of the hash chain (ledger entries, receipts, notifications) that an erasure rewrites can no longer give their
-- link's hash: their bytes before are gone on purpose. Each rewritten link is therefore recorded, append-only, in
-- `erased_chain_rows` (the link's hash as it was, and the SHA-256 of the row's chain fields after), and that record
-- is itself linked into the chain, in the transaction that rewrites the row:
--     fields(record) = 'erased_chain_rows', erased_row_id, erasure_id, link_seq, item_table, item_id, link_hash,
--                      SHA-256(ledger_chain_fields(row after)), erased_at
-- `ledger verify` takes an erased link's hash from the record (it must equal the link's stored hash) and checks the
-- row as stored against the record's digest: such a row reads as erased. A row rewritten without a record that its
-- chain links still reads as changed, as does one changed after its erasure.

CREATE TABLE account_erasures (
    erasure_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    app_id bigint NOT NULL REFERENCES apps (app_id),
    pseudonym text NOT NULL UNIQUE CHECK (pseudonym ~ '^erased-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'),
    erased_by text NOT NULL CHECK (length(erased_by) BETWEEN 1 AND 200),
    erased_at timestamptz NOT NULL
);
COMMENT ON TABLE account_erasures IS 'citus: coordinator';

-- The digests of the ids an erasure erased (the account's, and those merged into it, each under a pseudonym of its
-- own): submissions and reads naming one are refused as erased.
CREATE TABLE erased_accounts (
    app_id bigint NOT NULL REFERENCES apps (app_id),
    account_digest bytea NOT NULL CHECK (length(account_digest) = 32),
    erasure_id bigint NOT NULL REFERENCES account_erasures (erasure_id),
    pseudonym text NOT NULL UNIQUE CHECK (pseudonym ~ '^erased-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'),
    PRIMARY KEY (app_id, account_digest)
);
COMMENT ON TABLE erased_accounts IS 'citus: coordinator';

CREATE TABLE erased_chain_rows (
    erased_row_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    erasure_id bigint NOT NULL REFERENCES account_erasures (erasure_id),
    app_id bigint NOT NULL,
    environment text NOT NULL,
    original_transaction_id text NOT NULL,
    link_seq bigint NOT NULL,
    item_table text NOT NULL CHECK (item_table IN ('ledger_entries', 'receipts', 'notifications')),
    item_id bigint NOT NULL,
    link_hash bytea NOT NULL CHECK (length(link_hash) = 32),
    fields_sha256_after bytea NOT NULL CHECK (length(fields_sha256_after) = 32),
    erased_at timestamptz NOT NULL
);
COMMENT ON TABLE erased_chain_rows IS 'citus: coordinator';
CREATE INDEX index_erased_chain_rows_on_chain
    ON erased_chain_rows (app_id, environment, original_transaction_id, link_seq);

CREATE FUNCTION account_erasures_are_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'account erasures are append-only: % refused', TG_OP
        USING ERRCODE = 'restrict_violation';
END
$$;
CREATE TRIGGER account_erasures_no_update BEFORE UPDATE OR DELETE ON account_erasures
    FOR EACH ROW EXECUTE FUNCTION account_erasures_are_append_only();
CREATE TRIGGER erased_accounts_no_update BEFORE UPDATE OR DELETE ON erased_accounts
    FOR EACH ROW EXECUTE FUNCTION account_erasures_are_append_only();
CREATE TRIGGER erased_chain_rows_no_update BEFORE UPDATE OR DELETE ON erased_chain_rows
    FOR EACH ROW EXECUTE FUNCTION account_erasures_are_append_only();
CREATE TRIGGER erased_chain_rows_no_truncate BEFORE TRUNCATE ON erased_chain_rows
    FOR EACH STATEMENT EXECUTE FUNCTION account_erasures_are_append_only();

ALTER TABLE ledger_chain_links DROP CONSTRAINT ledger_chain_links_item_table_check;
ALTER TABLE ledger_chain_links ADD CONSTRAINT ledger_chain_links_item_table_check
    CHECK (item_table IN ('ledger_entries', 'receipts', 'notifications', 'notification_redactions',
                          'erased_chain_rows'));

CREATE FUNCTION ledger_chain_fields(x erased_chain_rows) RETURNS bytea LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT ledger_chain_field('erased_chain_rows'::text) || ledger_chain_field(x.erased_row_id)
        || ledger_chain_field(x.erasure_id) || ledger_chain_field(x.link_seq) || ledger_chain_field(x.item_table)
        || ledger_chain_field(x.item_id) || ledger_chain_field(x.link_hash)
        || ledger_chain_field(x.fields_sha256_after) || ledger_chain_field(x.erased_at)
$$;

-- Ledger entries stay append-only, but for an erasure: it may replace the account id by a pseudonym, and the erased
-- ids named in the entry's idempotency key and reason (a merge's entries name both accounts), nothing else. The
-- pseudonym's shape is checked here, the record of the rewrite by `ledger verify`.
CREATE OR REPLACE FUNCTION ledger_entries_are_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE'
        AND (to_jsonb(NEW) - 'account_id' - 'idempotency_key' - 'reason')
            = (to_jsonb(OLD) - 'account_id' - 'idempotency_key' - 'reason')
        AND (NEW.account_id ~ '^erased-[0-9a-f-]{36}$' AND NEW.account_id IS DISTINCT FROM OLD.account_id
             OR NEW.account_id IS NOT DISTINCT FROM OLD.account_id
                AND NEW.idempotency_key ~ 'erased-[0-9a-f-]{36}' AND NEW.idempotency_key <> OLD.idempotency_key) THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION 'ledger entries are append-only: % refused', TG_OP
        USING ERRCODE = 'restrict_violation';
END
$$;

-- The audit log likewise: an erasure may rewrite an entry's target (the ids it names), nothing else.
CREATE OR REPLACE FUNCTION audit_log_is_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND current_setting('subledger.erasing', true) = 'on'
        AND (to_jsonb(NEW) - 'target') = (to_jsonb(OLD) - 'target') THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION 'the audit log is append-only: % refused', TG_OP
        USING ERRCODE = 'restrict_violation';
END
$$;

-- Consent and usage reports move to the pseudonym (a copy, then the original removed) during an erasure only.
CREATE OR REPLACE FUNCTION consumption_reports_are_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' AND current_setting('subledger.erasing', true) = 'on' THEN
        RETURN OLD;
    END IF;
    RAISE EXCEPTION 'consent and usage reports are append-only: % refused', TG_OP
        USING ERRCODE = 'restrict_violation';
END
$$;

-- The digest an erased id is known by (never the id itself).
CREATE FUNCTION account_erasure_digest(p_app_id bigint, p_account_id text) RETURNS bytea
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT sha256(convert_to('subledger-account-erasure|' || p_app_id::text || '|' || p_account_id, 'UTF8'))
$$;

-- The pseudonym of `p_id` among the erased ids, or `p_id` itself when it is not one of them.
CREATE FUNCTION account_erasure_pseudonym(p_id text, p_ids text[], p_pseudonyms text[]) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
    SELECT coalesce(p_pseudonyms[array_position(p_ids, p_id)], p_id)
$$;

-- `p_text` with each erased id replaced by its pseudonym where it stands as a whole value: a JSON string
-- ("id"), or a part of a key delimited by the start or end, `:`, `|` or `->` (the ledger's and the outbox's keys).
-- A longer id that merely contains the erased one is left alone.
CREATE FUNCTION account_erasure_rewrite(p_text text, p_ids text[], p_pseudonyms text[]) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    v_i integer;
    v_pattern text;
BEGIN
    IF p_text IS NULL THEN
        RETURN NULL;
    END IF;
    FOR v_i IN 1 .. cardinality(p_ids) LOOP
        p_text := replace(p_text, to_json(p_ids[v_i])::text, to_json(p_pseudonyms[v_i])::text);
        v_pattern := '(^|[:|]|->)' || regexp_replace(p_ids[v_i], '([!$()*+.:<=>?[\\\]^{|}-])', '\\\1', 'g')
            || '(?=$|[:|]|->)';
        p_text := regexp_replace(p_text, v_pattern, '\1' || replace(p_pseudonyms[v_i], '\', '\\'), 'g');
    END LOOP;
    RETURN p_text;
END
$$;

-- `p_value` without the members, at any depth, that carry an account's identifier in a store's own words (StoreKit's
-- app account token and application username, Google Play's obfuscated account and profile ids).
CREATE FUNCTION account_erasure_strip(p_value jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE jsonb_typeof(p_value)
        WHEN 'object' THEN (
            SELECT coalesce(jsonb_object_agg(k, account_erasure_strip(v)), '{}') FROM jsonb_each(p_value) AS m(k, v)
            WHERE k NOT IN ('appAccountToken', 'applicationUsername', 'app_account_token', 'obfuscatedExternalAccountId',
                            'obfuscatedExternalProfileId', 'obfuscatedAccountId', 'obfuscatedProfileId'))
        WHEN 'array' THEN (
            SELECT coalesce(jsonb_agg(account_erasure_strip(v) ORDER BY i), '[]')
            FROM jsonb_array_elements(p_value) WITH ORDINALITY AS a(v, i))
        ELSE p_value
    END
$$;

-- Moves the rows of `p_table` (one of the tables distributed by account_id, whose distribution value cannot be
-- updated on a Citus cluster) from the erased ids to their pseudonyms: a copy with the ids replaced in every column
-- (`account_erasure_rewrite`: the account id, and keys that name it), then the rows removed. Returns how many moved.
CREATE FUNCTION account_erasure_move(p_table text, p_app_id bigint, p_ids text[], p_pseudonyms text[])
RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    v_count bigint;
BEGIN
    EXECUTE format(
        'INSERT INTO %1$I OVERRIDING SYSTEM VALUE '
        'SELECT (jsonb_populate_record(NULL::%1$I, '
        '    account_erasure_rewrite(to_jsonb(x)::text, $2, $3)::jsonb)).* '
        'FROM %1$I x WHERE x.app_id = $1 AND x.account_id = ANY ($2) ON CONFLICT DO NOTHING', p_table)
        USING p_app_id, p_ids, p_pseudonyms;
    EXECUTE format('DELETE FROM %I WHERE app_id = $1 AND account_id = ANY ($2)', p_table) USING p_app_id, p_ids;
    GET DIAGNOSTICS v_count = ROW_COUNT;
    RETURN v_count;
END
$$;

-- Records that link `p_seq` of a chain (its row rewritten by erasure `p_erasure_id`) now hashes to `p_after`, and
-- links the record at the chain's head, under the head's row lock (as `ledger_chain_link` appends).
CREATE FUNCTION account_erasure_link(
    p_erasure_id bigint, p_app_id bigint, p_environment text, p_chain text, p_seq bigint, p_table text,
    p_item_id bigint, p_link_hash bytea, p_after bytea, p_now timestamptz
) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    v_record erased_chain_rows;
    v_seq bigint;
    v_hash bytea;
BEGIN
    INSERT INTO erased_chain_rows (erasure_id, app_id, environment, original_transaction_id, link_seq, item_table,
                                   item_id, link_hash, fields_sha256_after, erased_at)
    VALUES (p_erasure_id, p_app_id, p_environment, p_chain, p_seq, p_table, p_item_id, p_link_hash, p_after, p_now)
    RETURNING * INTO v_record;
    SELECT h.seq, h.hash INTO STRICT v_seq, v_hash FROM ledger_chain_heads h
    WHERE h.app_id = p_app_id AND h.environment = p_environment AND h.original_transaction_id = p_chain
    FOR UPDATE;
    v_seq := v_seq + 1;
    v_hash := sha256(v_hash || ledger_chain_fields(v_record));
    INSERT INTO ledger_chain_links (app_id, environment, original_transaction_id, seq, item_table, item_id, hash)
    VALUES (p_app_id, p_environment, p_chain, v_seq, 'erased_chain_rows', v_record.erased_row_id, v_hash);
    UPDATE ledger_chain_heads SET seq = v_seq, hash = v_hash, updated_at = now()
    WHERE app_id = p_app_id AND environment = p_environment AND original_transaction_id = p_chain;
END
$$;

-- Rewrites the rows of the hash chain that name the erased ids (ledger entries, their submissions, the notifications
-- of the chains they own), then records each of their links in chain and link order (`account_erasure_link`).
-- Returns the counts of rows rewritten.
CREATE FUNCTION account_erasure_rewrite_chains(
    p_erasure_id bigint, p_app_id bigint, p_ids text[], p_pseudonyms text[], p_now timestamptz
) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
    v_redacted text := jsonb_build_object('erased', true)::text;
    v_entries bigint[];
    v_receipts bigint[];
    v_notifications bigint[];
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
    -- Entries of the ids, and entries of other accounts whose key names one: the other side of a merge, a transfer
    -- or credit entry on a chain where the ids have entries too (found through the account index, not a scan).
    WITH rewritten AS (
        UPDATE ledger_entries SET account_id = account_erasure_pseudonym(account_id, p_ids, p_pseudonyms),
            idempotency_key = account_erasure_rewrite(idempotency_key, p_ids, p_pseudonyms),
            reason = account_erasure_rewrite(reason, p_ids, p_pseudonyms)
        WHERE app_id = p_app_id AND (account_id = ANY (p_ids) OR (kind IN ('transfer_in', 'transfer_out', 'credit',
            'debit') AND (environment, original_transaction_id) IN (
                SELECT environment, original_transaction_id FROM ledger_entries
                WHERE app_id = p_app_id AND account_id = ANY (p_ids))
            AND account_erasure_rewrite(idempotency_key, p_ids, p_pseudonyms) <> idempotency_key))
        RETURNING entry_id)
    SELECT coalesce(array_agg(entry_id), '{}') INTO v_entries FROM rewritten;
    WITH rewritten AS (
        UPDATE receipts SET account_id = account_erasure_pseudonym(account_id, p_ids, p_pseudonyms), order_id = NULL,
            body = v_redacted, body_sha256 = sha256(convert_to(v_redacted, 'UTF8')), client_transaction_id = NULL
        WHERE app_id = p_app_id AND account_id = ANY (p_ids) RETURNING receipt_id)
    SELECT coalesce(array_agg(receipt_id), '{}') INTO v_receipts FROM rewritten;
    UPDATE notifications SET body = v_redacted WHERE notification_row_id = ANY (v_notifications);

    FOR v_link IN
        SELECT l.app_id, l.environment, l.original_transaction_id, l.seq, l.item_table, l.item_id, l.hash
        FROM ledger_chain_links l
        WHERE l.app_id = p_app_id AND l.item_table = 'ledger_entries' AND l.item_id = ANY (v_entries)
        UNION ALL
        SELECT l.app_id, l.environment, l.original_transaction_id, l.seq, l.item_table, l.item_id, l.hash
        FROM ledger_chain_links l
        WHERE l.item_table = 'receipts' AND l.item_id = ANY (v_receipts)
        UNION ALL
        SELECT l.app_id, l.environment, l.original_transaction_id, l.seq, l.item_table, l.item_id, l.hash
        FROM ledger_chain_links l
        WHERE l.item_table = 'notifications' AND l.item_id = ANY (v_notifications)
        ORDER BY 1, 2, 3, 4
    LOOP
        -- The row is read into a variable and hashed here: a whole-row call on a distributed table's alias is not
        -- something Citus can send to a worker.
        IF v_link.item_table = 'ledger_entries' THEN
            SELECT * INTO STRICT v_entry FROM ledger_entries e
            WHERE e.app_id = v_link.app_id AND e.environment = v_link.environment
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
            p_erasure_id, v_link.app_id, v_link.environment, v_link.original_transaction_id, v_link.seq,
            v_link.item_table, v_link.item_id, v_link.hash, v_after, p_now);
    END LOOP;
    RETURN jsonb_build_object('ledger_entries', cardinality(v_entries), 'receipts', cardinality(v_receipts),
                              'notifications', cardinality(v_notifications));
END
$$;

-- Rewrites what the ledger's state, the read models, the outbox and the logs hold of the erased ids. Returns counts.
CREATE FUNCTION account_erasure_rewrite_state(p_app_id bigint, p_ids text[], p_pseudonyms text[])
RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
    v_count bigint;
    v_summary jsonb;
    v_quoted text[] := ARRAY(SELECT '%' || to_json(id)::text || '%' FROM unnest(p_ids) id);
BEGIN
    v_summary := jsonb_build_object('environments', to_jsonb(ARRAY(
        SELECT DISTINCT environment FROM chains WHERE app_id = p_app_id AND owner_account_id = ANY (p_ids)
        ORDER BY 1)));
    UPDATE chains SET owner_account_id = account_erasure_pseudonym(owner_account_id, p_ids, p_pseudonyms),
        snapshot = account_erasure_rewrite(account_erasure_strip(snapshot)::text, p_ids, p_pseudonyms)::jsonb
    WHERE app_id = p_app_id AND (owner_account_id = ANY (p_ids) OR (environment, original_transaction_id) IN (
        SELECT environment, original_transaction_id FROM ownership_bindings
        WHERE app_id = p_app_id AND (account_id = ANY (p_ids) OR from_account_id = ANY (p_ids))));
    GET DIAGNOSTICS v_count = ROW_COUNT;
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
    WHERE app_id = p_app_id AND (account_id = ANY (p_ids) OR body LIKE ANY (v_quoted));
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

-- Erases account `p_account_id` of app `p_app_id`, and the ids merged into it (the same customer's), by `p_actor` at
-- `p_now`, in the caller's transaction (which holds the account's lock). Each id gets a random pseudonym of its own
-- (two ids' rows under one could collide: their webhook sequence numbers). Returns NULL when the id was erased
-- before, '{}' when no row of the app knows it, else the summary: {"erasure_id", "pseudonym" (the account's),
-- "aliases", "environments" (of the chains it owned), counts by what was rewritten or removed}.
CREATE FUNCTION account_erase(p_app_id bigint, p_account_id text, p_actor text, p_now timestamptz)
RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
    v_erasure_id bigint;
    v_ids text[];
    v_pseudonyms text[];
    v_summary jsonb;
BEGIN
    IF EXISTS (SELECT 1 FROM erased_accounts WHERE app_id = p_app_id
               AND account_digest = account_erasure_digest(p_app_id, p_account_id)) THEN
        RETURN NULL;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM accounts WHERE app_id = p_app_id AND account_id = p_account_id)
        AND NOT EXISTS (SELECT 1 FROM account_aliases WHERE app_id = p_app_id AND account_id = p_account_id)
        AND NOT EXISTS (SELECT 1 FROM ledger_entries WHERE app_id = p_app_id AND account_id = p_account_id)
        AND NOT EXISTS (SELECT 1 FROM receipts WHERE app_id = p_app_id AND account_id = p_account_id) THEN
        RETURN '{}';
    END IF;
    PERFORM set_config('subledger.erasing', 'on', true);
    v_ids := ARRAY[p_account_id] || ARRAY(
        SELECT account_id FROM account_aliases WHERE app_id = p_app_id AND merged_into = p_account_id
        ORDER BY account_id);
    v_pseudonyms := ARRAY(SELECT 'erased-' || gen_random_uuid()::text FROM unnest(v_ids));

    INSERT INTO account_erasures (app_id, pseudonym, erased_by, erased_at)
    VALUES (p_app_id, v_pseudonyms[1], p_actor, p_now) RETURNING erasure_id INTO v_erasure_id;
    INSERT INTO erased_accounts (app_id, account_digest, erasure_id, pseudonym)
    SELECT p_app_id, account_erasure_digest(p_app_id, v_ids[i]), v_erasure_id, v_pseudonyms[i]
    FROM generate_subscripts(v_ids, 1) AS i;
    DELETE FROM account_aliases
    WHERE app_id = p_app_id AND (account_id = ANY (v_ids) OR merged_into = ANY (v_ids));

    v_summary := account_erasure_rewrite_chains(v_erasure_id, p_app_id, v_ids, v_pseudonyms, p_now)
        || account_erasure_rewrite_state(p_app_id, v_ids, v_pseudonyms)
        || jsonb_build_object('erasure_id', v_erasure_id, 'pseudonym', v_pseudonyms[1],
                              'aliases', cardinality(v_ids) - 1);
    PERFORM set_config('subledger.erasing', 'off', true);
    RETURN v_summary;
END
$$;
