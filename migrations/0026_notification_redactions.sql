-- step 26: notification redactions: a stored V1 body's redaction is itself a link of every chain that links the body
-- `subledger secrets rotate-key` removes the shared secret Apple echoes in a V1 notification's `password` from bodies
-- stored before bodies were redacted on arrival. Such a body may already be a link of its chains (step 24 hashed it
-- with the password), so its redaction is recorded, append-only, with the SHA-256 of the body before and after, and
-- linked into every chain that links the notification, in the transaction that rewrites the body:
--     fields(redaction) = 'notification_redactions', redaction_id, notification_row_id, SHA-256(body before),
--                         SHA-256(body after), redacted_at
-- (the encoding of step 24). `ledger verify` hashes a notification's link with the "before" of the chain's first
-- redaction of it, and checks the body as stored against the "after" of the chain's last; a redaction row that no
-- link holds proves nothing, so a body rewritten with a forged redaction beside it still reads as changed.

CREATE TABLE notification_redactions (
    redaction_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    notification_row_id bigint NOT NULL,
    body_sha256_before bytea NOT NULL CHECK (length(body_sha256_before) = 32),
    body_sha256_after bytea NOT NULL CHECK (length(body_sha256_after) = 32),
    redacted_at timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE notification_redactions IS 'citus: coordinator';
CREATE INDEX index_notification_redactions_on_notification
    ON notification_redactions (notification_row_id, redaction_id);

CREATE FUNCTION notification_redactions_are_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'notification redactions are append-only: % refused', TG_OP
        USING ERRCODE = 'restrict_violation';
END
$$;
CREATE TRIGGER notification_redactions_no_update BEFORE UPDATE OR DELETE ON notification_redactions
    FOR EACH ROW EXECUTE FUNCTION notification_redactions_are_append_only();
CREATE TRIGGER notification_redactions_no_truncate BEFORE TRUNCATE ON notification_redactions
    FOR EACH STATEMENT EXECUTE FUNCTION notification_redactions_are_append_only();

ALTER TABLE ledger_chain_links DROP CONSTRAINT ledger_chain_links_item_table_check;
ALTER TABLE ledger_chain_links ADD CONSTRAINT ledger_chain_links_item_table_check
    CHECK (item_table IN ('ledger_entries', 'receipts', 'notifications', 'notification_redactions'));

CREATE FUNCTION ledger_chain_fields(d notification_redactions) RETURNS bytea LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT ledger_chain_field('notification_redactions'::text) || ledger_chain_field(d.redaction_id)
        || ledger_chain_field(d.notification_row_id) || ledger_chain_field(d.body_sha256_before)
        || ledger_chain_field(d.body_sha256_after) || ledger_chain_field(d.redacted_at)
$$;

-- Rewrites one notification's body from `p_old` to `p_new` (nothing when the body is no longer `p_old`), records the
-- redaction and links it into every chain that links the notification, each under its head's row lock (as
-- `ledger_chain_link` appends). Returns whether the body was rewritten.
CREATE FUNCTION notification_redact(p_notification_row_id bigint, p_old text, p_new text)
RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
    v_redaction notification_redactions;
    v_chain record;
    v_seq bigint;
    v_hash bytea;
BEGIN
    UPDATE notifications SET body = p_new WHERE notification_row_id = p_notification_row_id AND body = p_old;
    IF NOT FOUND THEN
        RETURN false;
    END IF;
    INSERT INTO notification_redactions (notification_row_id, body_sha256_before, body_sha256_after)
    VALUES (p_notification_row_id, sha256(convert_to(p_old, 'UTF8')), sha256(convert_to(p_new, 'UTF8')))
    RETURNING * INTO v_redaction;
    FOR v_chain IN
        SELECT l.app_id, l.environment, l.original_transaction_id FROM ledger_chain_links l
        WHERE l.item_table = 'notifications' AND l.item_id = p_notification_row_id
        ORDER BY 1, 2, 3
    LOOP
        SELECT h.seq, h.hash INTO STRICT v_seq, v_hash FROM ledger_chain_heads h
        WHERE h.app_id = v_chain.app_id AND h.environment = v_chain.environment
          AND h.original_transaction_id = v_chain.original_transaction_id
        FOR UPDATE;
        v_seq := v_seq + 1;
        v_hash := sha256(v_hash || ledger_chain_fields(v_redaction));
        INSERT INTO ledger_chain_links (app_id, environment, original_transaction_id, seq, item_table, item_id, hash)
        VALUES (v_chain.app_id, v_chain.environment, v_chain.original_transaction_id, v_seq,
                'notification_redactions', v_redaction.redaction_id, v_hash);
        UPDATE ledger_chain_heads SET seq = v_seq, hash = v_hash, updated_at = now()
        WHERE app_id = v_chain.app_id AND environment = v_chain.environment
          AND original_transaction_id = v_chain.original_transaction_id;
    END LOOP;
    RETURN true;
END
$$;
