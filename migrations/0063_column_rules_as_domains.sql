-- step 63: the single-column rules of the tables an apply writes, as domains
-- A table's CHECK constraints are read from the catalog as text, parsed and planned again for every statement that
-- inserts or updates a row of it, and all of them are evaluated for every row an UPDATE touches. A domain's
-- constraints are parsed once per session (the type cache) and checked only where a value is assigned to a column of
-- that domain. Measured with pgbench, one client, single-row inserts into a table of seven such columns: 9,520–10,400
-- inserts/s without rules, 7,390–8,370 with seven table CHECKs, 9,050–9,330 with the same seven as domains. A V2
-- notification inserts or updates rows of `notifications`, `transactions`, `ledger_entries`, `webhook_events` and
-- `webhook_account_sequences` (and a receipt's apply, of `receipts`): their single-column rules become domains, with
-- the same conditions (the hash chain's tables', in step 64). Rules that relate two columns stay table CHECKs.
--
-- No table is rewritten: each domain is created without its rule, the columns change to it (a binary-compatible
-- change, which keeps the rows' storage and the indexes over the columns, but for the partial ones, which are built
-- again), then the domain gains its rule, which PostgreSQL checks
-- against the rows present, and the table's CHECK is dropped. `transaction_amounts` reads six of the changed
-- columns of `transactions`: it is defined again, unchanged, with its columns of the types they had.

CREATE DOMAIN input_status AS text;
CREATE DOMAIN notification_version AS text;
CREATE DOMAIN consumption_request_reason AS text;
CREATE DOMAIN external_purchase_id AS text;
CREATE DOMAIN receipt_kind AS text;
CREATE DOMAIN webhook_cause_kind AS text;
CREATE DOMAIN webhook_event_type AS text;
CREATE DOMAIN webhook_idempotency_key AS text;
CREATE DOMAIN account_sequence AS bigint;
CREATE DOMAIN ledger_entry_kind AS text;
CREATE DOMAIN app_transaction_id AS text;
CREATE DOMAIN currency_code AS text;
CREATE DOMAIN storefront_code AS text;
CREATE DOMAIN offer_type AS integer;
CREATE DOMAIN offer_discount_type AS text;
CREATE DOMAIN price_milliunits AS bigint;
CREATE DOMAIN revocation_percentage AS integer;

DROP VIEW transaction_amounts;

ALTER TABLE notifications
    ALTER COLUMN status TYPE input_status,
    ALTER COLUMN version TYPE notification_version,
    ALTER COLUMN consumption_request_reason TYPE consumption_request_reason,
    ALTER COLUMN external_purchase_id TYPE external_purchase_id;
ALTER TABLE receipts
    ALTER COLUMN status TYPE input_status,
    ALTER COLUMN kind TYPE receipt_kind;
ALTER TABLE webhook_events
    ALTER COLUMN cause_kind TYPE webhook_cause_kind,
    ALTER COLUMN event_type TYPE webhook_event_type,
    ALTER COLUMN idempotency_key TYPE webhook_idempotency_key,
    ALTER COLUMN account_sequence TYPE account_sequence;
ALTER TABLE webhook_account_sequences
    ALTER COLUMN last_sequence TYPE account_sequence;
ALTER TABLE ledger_entries
    ALTER COLUMN kind TYPE ledger_entry_kind;
ALTER TABLE transactions
    ALTER COLUMN app_transaction_id TYPE app_transaction_id,
    ALTER COLUMN currency TYPE currency_code,
    ALTER COLUMN storefront TYPE storefront_code,
    ALTER COLUMN offer_type TYPE offer_type,
    ALTER COLUMN offer_discount_type TYPE offer_discount_type,
    ALTER COLUMN price_milliunits TYPE price_milliunits,
    ALTER COLUMN revocation_percentage TYPE revocation_percentage;

ALTER DOMAIN input_status ADD CONSTRAINT input_status_check
    CHECK (VALUE IN ('pending', 'applied', 'invalid', 'retry', 'quarantined'));
ALTER DOMAIN notification_version ADD CONSTRAINT notification_version_check
    CHECK (VALUE IN ('v1', 'v2', 'google_rtdn', 'stripe_event', 'paddle_event'));
ALTER DOMAIN consumption_request_reason ADD CONSTRAINT consumption_request_reason_check
    CHECK (VALUE ~ '^[A-Z_]{1,64}$');
ALTER DOMAIN external_purchase_id ADD CONSTRAINT external_purchase_id_check
    CHECK (length(VALUE) BETWEEN 1 AND 128);
ALTER DOMAIN receipt_kind ADD CONSTRAINT receipt_kind_check
    CHECK (VALUE IN ('app_receipt', 'signed_transaction', 'google_purchase', 'stripe_checkout'));
ALTER DOMAIN webhook_cause_kind ADD CONSTRAINT webhook_cause_kind_check
    CHECK (VALUE IN ('notification', 'receipt', 'transaction', 'poll', 'clock', 'admin', 'test'));
ALTER DOMAIN webhook_event_type ADD CONSTRAINT webhook_event_type_check
    CHECK (length(VALUE) BETWEEN 1 AND 100);
ALTER DOMAIN webhook_idempotency_key ADD CONSTRAINT webhook_idempotency_key_check
    CHECK (length(VALUE) BETWEEN 1 AND 1000);
ALTER DOMAIN account_sequence ADD CONSTRAINT account_sequence_check CHECK (VALUE > 0);
ALTER DOMAIN ledger_entry_kind ADD CONSTRAINT ledger_entry_kind_check
    CHECK (VALUE IN ('grant', 'extend', 'revoke', 'restore', 'transfer_out', 'transfer_in', 'credit', 'debit',
        'manual_grant', 'manual_revoke'));
ALTER DOMAIN app_transaction_id ADD CONSTRAINT app_transaction_id_check CHECK (length(VALUE) BETWEEN 1 AND 64);
ALTER DOMAIN currency_code ADD CONSTRAINT currency_code_check CHECK (VALUE ~ '^[A-Z]{3}$');
ALTER DOMAIN storefront_code ADD CONSTRAINT storefront_code_check CHECK (VALUE ~ '^[A-Z]{3}$');
ALTER DOMAIN offer_type ADD CONSTRAINT offer_type_check CHECK (VALUE BETWEEN 1 AND 99);
ALTER DOMAIN offer_discount_type ADD CONSTRAINT offer_discount_type_check CHECK (length(VALUE) <= 64);
ALTER DOMAIN price_milliunits ADD CONSTRAINT price_milliunits_check CHECK (VALUE >= 0);
ALTER DOMAIN revocation_percentage ADD CONSTRAINT revocation_percentage_check CHECK (VALUE BETWEEN 0 AND 100000);

ALTER TABLE notifications
    DROP CONSTRAINT notifications_status_check,
    DROP CONSTRAINT notifications_version_check,
    DROP CONSTRAINT notifications_consumption_request_reason_check,
    DROP CONSTRAINT notifications_external_purchase_id_check;
ALTER TABLE receipts
    DROP CONSTRAINT receipts_status_check,
    DROP CONSTRAINT receipts_kind_check;
ALTER TABLE webhook_events
    DROP CONSTRAINT webhook_events_cause_kind_check,
    DROP CONSTRAINT webhook_events_event_type_check,
    DROP CONSTRAINT webhook_events_idempotency_key_check,
    DROP CONSTRAINT webhook_events_account_sequence_check;
ALTER TABLE webhook_account_sequences
    DROP CONSTRAINT webhook_account_sequences_last_sequence_check;
ALTER TABLE ledger_entries
    DROP CONSTRAINT ledger_entries_kind_check;
ALTER TABLE transactions
    DROP CONSTRAINT transactions_app_transaction_id_check,
    DROP CONSTRAINT transactions_currency_check,
    DROP CONSTRAINT transactions_storefront_check,
    DROP CONSTRAINT transactions_offer_type_check,
    DROP CONSTRAINT transactions_offer_discount_type_check,
    DROP CONSTRAINT transactions_price_milliunits_check,
    DROP CONSTRAINT transactions_revocation_percentage_check;

-- Step 39's view, its columns of the types they had.
CREATE VIEW transaction_amounts AS
SELECT t.app_id, t.environment, t.transaction_id, t.original_transaction_id, t.product_id, t.account_id,
    t.purchase_date, t.expires_date, t.revocation_date, t.storefront::text AS storefront,
    t.offer_type::integer AS offer_type, t.offer_discount_type::text AS offer_discount_type,
    t.is_trial_period, t.is_in_intro_offer_period,
    CASE WHEN t.is_trial_period OR t.offer_discount_type = 'FREE_TRIAL' THEN 0
        ELSE coalesce(t.price_milliunits::bigint, catalog.price_milliunits) END AS amount_milliunits,
    coalesce(t.currency::text, catalog.currency) AS currency,
    (t.price_milliunits IS NULL AND NOT (t.is_trial_period OR t.offer_discount_type IS NOT DISTINCT FROM 'FREE_TRIAL')
        AND catalog.price_milliunits IS NOT NULL) AS estimated,
    t.revocation_percentage::integer AS revocation_percentage, t.billing_plan, t.source
FROM transactions t
LEFT JOIN LATERAL (
    SELECT p.price_milliunits, p.currency FROM catalog_prices p
    WHERE p.app_id = t.app_id AND p.product_id = t.product_id AND t.price_milliunits IS NULL
        AND (p.storefront = t.storefront OR p.storefront IS NULL) AND p.effective_from <= t.purchase_date
    ORDER BY (p.storefront IS NULL), p.effective_from DESC
    LIMIT 1
) catalog ON true;
