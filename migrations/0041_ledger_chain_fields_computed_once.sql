-- step 41: ledger chain: each field's value computed once
-- PostgreSQL inlines a field encoding by putting its argument's expression in every place the encoding's body names
-- the argument, and it does not share a repeated expression. The encodings of step 24 named theirs three times (the
-- NULL test, the length, the bytes), so linking a notification or a receipt hashed its body three times, detoasting
-- it each time, and every timestamp went through `extract` and numeric arithmetic three times. The fixed-size
-- encodings now name their value once (the length is a constant), the variable-size ones twice, and an input's body
-- digest is written as the 32-byte field it always is (a body is never NULL). The bytes are those of step 24, which
-- `ledger verify` recomputes in Swift.
CREATE OR REPLACE FUNCTION ledger_chain_field(v bytea) RETURNS bytea LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT coalesce(int4send(length(v)) || v, '\xffffffff'::bytea)
$$;
CREATE OR REPLACE FUNCTION ledger_chain_field(v bigint) RETURNS bytea LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT coalesce('\x00000008'::bytea || int8send(v), '\xffffffff'::bytea)
$$;
CREATE OR REPLACE FUNCTION ledger_chain_field(v timestamptz) RETURNS bytea LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT coalesce('\x00000008'::bytea || int8send((extract(epoch FROM v) * 1000000)::bigint), '\xffffffff'::bytea)
$$;
CREATE OR REPLACE FUNCTION ledger_chain_field(v uuid) RETURNS bytea LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT coalesce('\x00000010'::bytea || uuid_send(v), '\xffffffff'::bytea)
$$;
CREATE OR REPLACE FUNCTION ledger_chain_fields(r receipts) RETURNS bytea LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT ledger_chain_field('receipts'::text) || ledger_chain_field(r.receipt_id) || ledger_chain_field(r.app_id)
        || ledger_chain_field(r.account_id) || ledger_chain_field(r.order_id) || ledger_chain_field(r.kind)
        || '\x00000020'::bytea || sha256(convert_to(r.body, 'UTF8')) || ledger_chain_field(r.client_transaction_id)
        || ledger_chain_field(r.received_at)
$$;
CREATE OR REPLACE FUNCTION ledger_chain_fields(n notifications) RETURNS bytea LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT ledger_chain_field('notifications'::text) || ledger_chain_field(n.notification_row_id)
        || ledger_chain_field(n.app_id) || ledger_chain_field(n.notification_id) || ledger_chain_field(n.version)
        || ledger_chain_field(n.notification_type) || ledger_chain_field(n.subtype)
        || '\x00000020'::bytea || sha256(convert_to(n.body, 'UTF8')) || ledger_chain_field(n.signed_at)
        || ledger_chain_field(n.received_at)
$$;
