-- step 24: ledger chain: every ledger entry and every stored input an apply used is chained, per subscription chain, by SHA-256
-- A tamper-evident ledger (docs/operations.md, "Verifying the ledger"). The append-only triggers keep the
-- application from rewriting history; these hashes let `subledger ledger verify` notice when someone with more
-- rights than the application did.
--
-- Per subscription chain (app, environment, original transaction id: the key the chain family is distributed by),
-- every ledger entry and every stored input (receipt or notification) that an apply used on the chain is a link:
--     hash(link n) = SHA-256(hash(link n-1) || fields(item))      hash(link 0) = 32 zero bytes
-- `ledger_chain_links` holds each link's item and hash, `ledger_chain_heads` the chain's latest hash. `fields` is a
-- canonical encoding that depends on no PostgreSQL text rendering (no DateStyle, TimeZone or bytea_output): each
-- field is a 4-byte big-endian length and its bytes, a NULL is the length -1 (ff ff ff ff) and no bytes;
--   text        its UTF-8 bytes
--   bigint      8 bytes, big-endian two's complement
--   timestamptz microseconds since 1970-01-01 UTC, as a bigint
--   uuid        its 16 bytes
--   text[]      a 4-byte big-endian element count, then each element as a field
--   body        the 32-byte SHA-256 of the body's UTF-8 bytes (the body itself is not re-read by a verifier)
-- and an item's fields are its table's name, then (ledger_entries) entry_id, app_id, idempotency_key, kind,
-- account_id, environment, original_transaction_id, transaction_id, product_id, entitlement_ids, credits,
-- effective_at, period_end, reason, receipt_id, notification_row_id, recorded_at; (receipts) receipt_id, app_id,
-- account_id, order_id, kind, SHA-256(body), client_transaction_id, received_at; (notifications)
-- notification_row_id, app_id, notification_id, version, notification_type, subtype, SHA-256(body), signed_at,
-- received_at. The columns an input's processing changes (status, attempts, errors, leases, environment,
-- applied_at) are not hashed. `LedgerChainHash` in SubLedgerStore is the same encoding in Swift; `ledger verify`
-- recomputes with it, not with these functions.
--
-- An apply links, per chain it changed and after its entries are inserted, its input (unless that input is a link
-- of the chain already) and then the chain's entries after `last_entry_id`, in entry order. It holds the chain's
-- advisory lock (the apply's lock, taken before anything is read) and the head row's lock, so one chain's links are
-- written one apply at a time; two chains share nothing. Entry ids come from one sequence (CACHE 1), and a chain's
-- entries are inserted under its lock, so a chain's new entries are exactly those after `last_entry_id`; the
-- verifier also looks for entries with no link.
--
-- An input that changed no chain (a receipt Apple refused, a replay) is in no chain: it becomes a link when an
-- apply of it changes a chain, in every chain it changed.

CREATE TABLE ledger_chain_links (
    app_id bigint NOT NULL,
    environment text NOT NULL,
    original_transaction_id text NOT NULL,
    seq bigint NOT NULL CHECK (seq > 0),
    item_table text NOT NULL CHECK (item_table IN ('ledger_entries', 'receipts', 'notifications')),
    item_id bigint NOT NULL,
    hash bytea NOT NULL CHECK (length(hash) = 32),
    linked_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (app_id, environment, original_transaction_id, seq),
    UNIQUE (app_id, environment, original_transaction_id, item_table, item_id)
);
COMMENT ON TABLE ledger_chain_links IS 'citus: distributed by original_transaction_id';

CREATE TABLE ledger_chain_heads (
    app_id bigint NOT NULL,
    environment text NOT NULL,
    original_transaction_id text NOT NULL,
    seq bigint NOT NULL CHECK (seq > 0),
    last_entry_id bigint NOT NULL,
    hash bytea NOT NULL CHECK (length(hash) = 32),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (app_id, environment, original_transaction_id)
);
COMMENT ON TABLE ledger_chain_heads IS 'citus: distributed by original_transaction_id';

CREATE FUNCTION ledger_chain_links_are_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'ledger chain links are append-only: % refused', TG_OP
        USING ERRCODE = 'restrict_violation';
END
$$;
CREATE TRIGGER ledger_chain_links_no_update BEFORE UPDATE OR DELETE ON ledger_chain_links
    FOR EACH ROW EXECUTE FUNCTION ledger_chain_links_are_append_only();
CREATE TRIGGER ledger_chain_links_no_truncate BEFORE TRUNCATE ON ledger_chain_links
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_chain_links_are_append_only();

-- The field encodings, one per column type.
CREATE FUNCTION ledger_chain_field(v bytea) RETURNS bytea LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN v IS NULL THEN '\xffffffff'::bytea ELSE int4send(length(v)) || v END
$$;
CREATE FUNCTION ledger_chain_field(v text) RETURNS bytea LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT ledger_chain_field(convert_to(v, 'UTF8'))
$$;
CREATE FUNCTION ledger_chain_field(v bigint) RETURNS bytea LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT ledger_chain_field(int8send(v))
$$;
CREATE FUNCTION ledger_chain_field(v timestamptz) RETURNS bytea LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT ledger_chain_field(int8send((extract(epoch FROM v) * 1000000)::bigint))
$$;
CREATE FUNCTION ledger_chain_field(v uuid) RETURNS bytea LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT ledger_chain_field(uuid_send(v))
$$;
CREATE FUNCTION ledger_chain_field(v text[]) RETURNS bytea LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN v IS NULL THEN '\xffffffff'::bytea ELSE ledger_chain_field(
        int4send(cardinality(v))
        || coalesce((SELECT string_agg(ledger_chain_field(u.e), ''::bytea ORDER BY u.o)
                     FROM unnest(v) WITH ORDINALITY AS u(e, o)), ''::bytea)) END
$$;

-- The fields of each kind of item.
CREATE FUNCTION ledger_chain_fields(e ledger_entries) RETURNS bytea LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT ledger_chain_field('ledger_entries'::text) || ledger_chain_field(e.entry_id)
        || ledger_chain_field(e.app_id) || ledger_chain_field(e.idempotency_key) || ledger_chain_field(e.kind)
        || ledger_chain_field(e.account_id) || ledger_chain_field(e.environment)
        || ledger_chain_field(e.original_transaction_id) || ledger_chain_field(e.transaction_id)
        || ledger_chain_field(e.product_id) || ledger_chain_field(e.entitlement_ids) || ledger_chain_field(e.credits)
        || ledger_chain_field(e.effective_at) || ledger_chain_field(e.period_end) || ledger_chain_field(e.reason)
        || ledger_chain_field(e.receipt_id) || ledger_chain_field(e.notification_row_id)
        || ledger_chain_field(e.recorded_at)
$$;
CREATE FUNCTION ledger_chain_fields(r receipts) RETURNS bytea LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT ledger_chain_field('receipts'::text) || ledger_chain_field(r.receipt_id) || ledger_chain_field(r.app_id)
        || ledger_chain_field(r.account_id) || ledger_chain_field(r.order_id) || ledger_chain_field(r.kind)
        || ledger_chain_field(sha256(convert_to(r.body, 'UTF8'))) || ledger_chain_field(r.client_transaction_id)
        || ledger_chain_field(r.received_at)
$$;
CREATE FUNCTION ledger_chain_fields(n notifications) RETURNS bytea LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT ledger_chain_field('notifications'::text) || ledger_chain_field(n.notification_row_id)
        || ledger_chain_field(n.app_id) || ledger_chain_field(n.notification_id) || ledger_chain_field(n.version)
        || ledger_chain_field(n.notification_type) || ledger_chain_field(n.subtype)
        || ledger_chain_field(sha256(convert_to(n.body, 'UTF8'))) || ledger_chain_field(n.signed_at)
        || ledger_chain_field(n.received_at)
$$;

-- Links into one chain: the input (a receipt, a notification, or neither) unless it is a link of the chain already,
-- then the chain's entries after the head's `last_entry_id` up to `p_through_entry_id` (NULL: all), in entry order.
-- Returns how many links it added. The caller holds the chain's apply lock; the head's row lock (or, for a chain's
-- first link, its primary key) keeps any other caller from forking the chain.
CREATE FUNCTION ledger_chain_link(
    p_app_id bigint, p_environment text, p_chain text, p_receipt_id bigint, p_notification_row_id bigint,
    p_through_entry_id bigint DEFAULT NULL
) RETURNS integer LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
    v_found boolean;
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

    IF p_receipt_id IS NOT NULL AND NOT EXISTS (
        SELECT 1 FROM ledger_chain_links l
        WHERE l.app_id = p_app_id AND l.environment = p_environment AND l.original_transaction_id = p_chain
          AND l.item_table = 'receipts' AND l.item_id = p_receipt_id)
    THEN
        SELECT ledger_chain_fields(r) INTO v_fields FROM receipts r WHERE r.receipt_id = p_receipt_id;
        IF v_fields IS NOT NULL THEN
            v_seq := v_seq + 1;
            v_hash := sha256(v_hash || v_fields);
            INSERT INTO ledger_chain_links (app_id, environment, original_transaction_id, seq, item_table, item_id, hash)
            VALUES (p_app_id, p_environment, p_chain, v_seq, 'receipts', p_receipt_id, v_hash);
            v_added := v_added + 1;
        END IF;
    END IF;
    IF p_notification_row_id IS NOT NULL AND NOT EXISTS (
        SELECT 1 FROM ledger_chain_links l
        WHERE l.app_id = p_app_id AND l.environment = p_environment AND l.original_transaction_id = p_chain
          AND l.item_table = 'notifications' AND l.item_id = p_notification_row_id)
    THEN
        SELECT ledger_chain_fields(n) INTO v_fields FROM notifications n
        WHERE n.notification_row_id = p_notification_row_id;
        IF v_fields IS NOT NULL THEN
            v_seq := v_seq + 1;
            v_hash := sha256(v_hash || v_fields);
            INSERT INTO ledger_chain_links (app_id, environment, original_transaction_id, seq, item_table, item_id, hash)
            VALUES (p_app_id, p_environment, p_chain, v_seq, 'notifications', p_notification_row_id, v_hash);
            v_added := v_added + 1;
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

-- Links every entry not linked yet, chain by chain in key order and in entry order within a chain, each entry's
-- input (receipt or notification) just before the chain's first entry from it. What an upgraded database had
-- before this step becomes its chains' first links; inputs that made no entry (a renewal preference, a replay)
-- were not recorded against a chain before and are not linked. Returns how many links it added.
CREATE FUNCTION ledger_chain_backfill() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    v_entry record;
    v_added bigint := 0;
BEGIN
    FOR v_entry IN
        SELECT e.app_id, e.environment, e.original_transaction_id, e.entry_id, e.receipt_id, e.notification_row_id
        FROM ledger_entries e
        WHERE NOT EXISTS (
            SELECT 1 FROM ledger_chain_heads h
            WHERE h.app_id = e.app_id AND h.environment = e.environment
              AND h.original_transaction_id = e.original_transaction_id AND h.last_entry_id >= e.entry_id)
        ORDER BY e.app_id, e.environment, e.original_transaction_id, e.entry_id
    LOOP
        v_added := v_added + ledger_chain_link(
            v_entry.app_id, v_entry.environment, v_entry.original_transaction_id, v_entry.receipt_id,
            v_entry.notification_row_id, v_entry.entry_id);
    END LOOP;
    RETURN v_added;
END
$$;

SELECT ledger_chain_backfill();
