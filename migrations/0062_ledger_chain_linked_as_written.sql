-- step 62: ledger chain: an entry's fields from its columns, so that an apply links each row in the statement that
-- writes it
-- An apply linked its chain with `ledger_chain_link` after its rows: a PL/pgSQL function that read the head under
-- its lock, looked the input up, read and encoded it, read the new entries back, inserted one link each and moved
-- the head, about seven statements of its own for a renewal. An apply now writes each link with its item: the input's
-- link in one statement per chain (the input's fields as the service encoded or read them), and each ledger entry's
-- in the statement that inserts the entry, which moves the head under the chain's lock in the same statement. That
-- statement encodes the entry from the row its INSERT returns, which is not of the `ledger_entries` row type: the
-- encoding takes the entry's columns. The row's encoding is now defined by it, so the two cannot differ; the bytes
-- are those of step 24, which `ledger verify` recomputes in Swift. On a Citus cluster, which runs a statement with
-- data-modifying parts as several steps through the coordinator, an apply still links with `ledger_chain_link`.
CREATE FUNCTION ledger_chain_entry_fields(
    entry_id bigint, app_id bigint, idempotency_key text, kind text, account_id text, environment text,
    original_transaction_id text, transaction_id text, product_id text, entitlement_ids text[], credits bigint,
    effective_at timestamptz, period_end timestamptz, reason text, receipt_id bigint, notification_row_id bigint,
    recorded_at timestamptz
) RETURNS bytea LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT ledger_chain_field('ledger_entries'::text) || ledger_chain_field(entry_id) || ledger_chain_field(app_id)
        || ledger_chain_field(idempotency_key) || ledger_chain_field(kind) || ledger_chain_field(account_id)
        || ledger_chain_field(environment) || ledger_chain_field(original_transaction_id)
        || ledger_chain_field(transaction_id) || ledger_chain_field(product_id) || ledger_chain_field(entitlement_ids)
        || ledger_chain_field(credits) || ledger_chain_field(effective_at) || ledger_chain_field(period_end)
        || ledger_chain_field(reason) || ledger_chain_field(receipt_id) || ledger_chain_field(notification_row_id)
        || ledger_chain_field(recorded_at)
$$;

CREATE OR REPLACE FUNCTION ledger_chain_fields(e ledger_entries) RETURNS bytea LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT ledger_chain_entry_fields(e.entry_id, e.app_id, e.idempotency_key, e.kind, e.account_id, e.environment,
        e.original_transaction_id, e.transaction_id, e.product_id, e.entitlement_ids, e.credits, e.effective_at,
        e.period_end, e.reason, e.receipt_id, e.notification_row_id, e.recorded_at)
$$;
