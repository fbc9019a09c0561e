-- step 15: citus: every key of a distributed table includes its distribution column; each table says how it is placed
-- The schema is ready for Citus (docs/operations.md, "Distributing with Citus"): one large app spreads over
-- nodes because its data is split by subscription and by account, not by app.
--   * The chain family is distributed by `original_transaction_id` and colocated: everything an apply writes for
--     one subscription lives on one node.
--   * The account family is distributed by `account_id` and colocated: an entitlement read is one node's work.
--   * Reference tables (the catalog, the apps, their settings) are copied to every node.
--   * Coordinator tables (the raw inputs, orders, the webhook outbox and queues, imports) stay on the coordinator.
-- Each table names its kind in its comment, `citus: distributed by <column>`, `citus: reference` or
-- `citus: coordinator`; the schema rule test (`DistributionRulesTests`) reads them back and checks every
-- primary key, unique index and foreign key against Citus's rules. A table added later must carry such a comment.
--
-- Citus refuses a unique constraint of a distributed table that leaves out the distribution column, and a foreign
-- key it cannot check on one node. So:
--   * keys made of an identity column alone become (scope, distribution column, identity); the identity column
--     stays, so rows keep their ids and their order;
--   * transactions: Apple's transaction id is unique per chain rather than per environment (a transaction belongs
--     to one chain; a lookup by transaction id keeps its own index);
--   * ledger_entries: the idempotency key is unique per chain (every key names a transaction of its chain, or the
--     chain itself for transfers, so no key can occur under two chains: the same entries are refused as before);
--   * foreign keys between the families, and from distributed tables to coordinator tables, are dropped: the apply
--     creates every account it names in its own transaction (`AccountRows.ensure`) and writes chains, entries and
--     the inputs they came from together, so what these keys checked still holds, by the one writer of these rows.
-- For a large database, build the new unique indexes beforehand without blocking writes
-- (`CREATE UNIQUE INDEX CONCURRENTLY <name> ...` with the names and columns below); this step then only attaches them.

CREATE UNIQUE INDEX IF NOT EXISTS transactions_chain_pkey
    ON transactions (app_id, environment, original_transaction_id, transaction_id);
CREATE INDEX IF NOT EXISTS index_transactions_on_app_id_and_transaction_id
    ON transactions (app_id, environment, transaction_id);
ALTER TABLE transactions DROP CONSTRAINT transactions_pkey,
    DROP CONSTRAINT transactions_app_id_account_id_fkey;
ALTER TABLE transactions ADD CONSTRAINT transactions_pkey PRIMARY KEY USING INDEX transactions_chain_pkey;

CREATE UNIQUE INDEX IF NOT EXISTS ownership_bindings_chain_pkey
    ON ownership_bindings (app_id, environment, original_transaction_id, sequence);
ALTER TABLE ownership_bindings DROP CONSTRAINT ownership_bindings_pkey,
    DROP CONSTRAINT ownership_bindings_app_id_environment_original_transaction__key,
    DROP CONSTRAINT ownership_bindings_app_id_account_id_fkey;
ALTER TABLE ownership_bindings ADD CONSTRAINT ownership_bindings_pkey PRIMARY KEY USING INDEX ownership_bindings_chain_pkey;

CREATE UNIQUE INDEX IF NOT EXISTS chain_state_changes_chain_pkey
    ON chain_state_changes (app_id, environment, original_transaction_id, change_id);
ALTER TABLE chain_state_changes DROP CONSTRAINT chain_state_changes_pkey;
ALTER TABLE chain_state_changes ADD CONSTRAINT chain_state_changes_pkey PRIMARY KEY USING INDEX chain_state_changes_chain_pkey;
-- The primary key's index is this one's.
DROP INDEX index_chain_state_changes_on_chain;

CREATE UNIQUE INDEX IF NOT EXISTS ledger_entries_chain_pkey
    ON ledger_entries (app_id, environment, original_transaction_id, entry_id);
CREATE UNIQUE INDEX IF NOT EXISTS ledger_entries_chain_idempotency_key
    ON ledger_entries (app_id, environment, original_transaction_id, idempotency_key);
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_pkey,
    DROP CONSTRAINT ledger_entries_app_id_idempotency_key_key,
    DROP CONSTRAINT ledger_entries_app_id_account_id_fkey,
    DROP CONSTRAINT ledger_entries_receipt_id_fkey,
    DROP CONSTRAINT ledger_entries_notification_row_id_fkey;
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_pkey PRIMARY KEY USING INDEX ledger_entries_chain_pkey,
    ADD CONSTRAINT ledger_entries_idempotency_key_key UNIQUE USING INDEX ledger_entries_chain_idempotency_key;
DROP INDEX index_ledger_entries_on_original_transaction_id;

ALTER TABLE chains DROP CONSTRAINT chains_app_id_owner_account_id_fkey,
    DROP CONSTRAINT chains_last_receipt_id_fkey;

CREATE UNIQUE INDEX IF NOT EXISTS consumption_consents_account_pkey
    ON consumption_consents (app_id, account_id, consent_id);
ALTER TABLE consumption_consents DROP CONSTRAINT consumption_consents_pkey;
ALTER TABLE consumption_consents ADD CONSTRAINT consumption_consents_pkey
    PRIMARY KEY USING INDEX consumption_consents_account_pkey;

CREATE UNIQUE INDEX IF NOT EXISTS consumption_usage_reports_account_pkey
    ON consumption_usage_reports (app_id, account_id, usage_id);
ALTER TABLE consumption_usage_reports DROP CONSTRAINT consumption_usage_reports_pkey;
ALTER TABLE consumption_usage_reports ADD CONSTRAINT consumption_usage_reports_pkey
    PRIMARY KEY USING INDEX consumption_usage_reports_account_pkey;

-- Coordinator tables referred to accounts, which are distributed.
ALTER TABLE receipts DROP CONSTRAINT receipts_app_id_account_id_fkey;
ALTER TABLE orders DROP CONSTRAINT orders_app_id_account_id_fkey;

COMMENT ON TABLE chains IS 'citus: distributed by original_transaction_id';
COMMENT ON TABLE transactions IS 'citus: distributed by original_transaction_id';
COMMENT ON TABLE ownership_bindings IS 'citus: distributed by original_transaction_id';
COMMENT ON TABLE chain_state_changes IS 'citus: distributed by original_transaction_id';
COMMENT ON TABLE ledger_entries IS 'citus: distributed by original_transaction_id';
COMMENT ON TABLE renewal_extensions IS 'citus: distributed by original_transaction_id';
COMMENT ON TABLE webhook_clock_moments IS 'citus: distributed by original_transaction_id';
COMMENT ON TABLE accounts IS 'citus: distributed by account_id';
COMMENT ON TABLE account_entitlement_periods IS 'citus: distributed by account_id';
COMMENT ON TABLE account_entitlement_backfill IS 'citus: distributed by account_id';
COMMENT ON TABLE webhook_account_sequences IS 'citus: distributed by account_id';
COMMENT ON TABLE consumption_consents IS 'citus: distributed by account_id';
COMMENT ON TABLE consumption_usage_reports IS 'citus: distributed by account_id';
COMMENT ON TABLE apps IS 'citus: reference';
COMMENT ON TABLE products IS 'citus: reference';
COMMENT ON TABLE product_entitlements IS 'citus: reference';
COMMENT ON TABLE catalog_prices IS 'citus: reference';
COMMENT ON TABLE exchange_rates IS 'citus: reference';
COMMENT ON TABLE app_small_business_periods IS 'citus: reference';
COMMENT ON TABLE storefront_tax_rates IS 'citus: reference';
COMMENT ON TABLE api_keys IS 'citus: reference';
COMMENT ON TABLE webhook_endpoints IS 'citus: reference';
COMMENT ON TABLE renewal_extension_requests IS 'citus: reference';
COMMENT ON TABLE notification_history_cursors IS 'citus: reference';
COMMENT ON TABLE receipts IS 'citus: coordinator';
COMMENT ON TABLE notifications IS 'citus: coordinator';
COMMENT ON TABLE orders IS 'citus: coordinator';
COMMENT ON TABLE webhook_events IS 'citus: coordinator';
COMMENT ON TABLE webhook_deliveries IS 'citus: coordinator';
COMMENT ON TABLE webhook_delivery_attempts IS 'citus: coordinator';
COMMENT ON TABLE consumption_requests IS 'citus: coordinator';
COMMENT ON TABLE consumption_request_attempts IS 'citus: coordinator';
COMMENT ON TABLE import_runs IS 'citus: coordinator';
COMMENT ON TABLE import_rows IS 'citus: coordinator';
COMMENT ON TABLE schema_migrations IS 'citus: coordinator';
