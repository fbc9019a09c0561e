-- SubLedger's database: the one description of it.
--
-- `subledger migrate` applies this file as ordered steps. Each step starts with a line
--   -- step N: description
-- and runs in its own transaction under an advisory lock; `schema_migrations` records each applied
-- step with the SHA-256 of its text, so running migrate again changes nothing and an edited,
-- already-applied step is reported instead of silently ignored. Add changes as new steps at the end;
-- never edit a step that has shipped.
--
-- Keys: every tenant row carries `app_id`; subscription data is keyed by
-- (app_id, environment, original_transaction_id, ...) and account data by (app_id, account_id, ...), so the
-- schema can be distributed with Citus by subscription and by account (step 15, docs/operations.md): every
-- table states its placement in its comment. Objects are created unqualified so the whole schema can live in
-- any schema named by `search_path` (the tests give each test its own).

-- step 1: initial ledger schema

CREATE TABLE apps (
    app_id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    bundle_id           text NOT NULL UNIQUE CHECK (length(bundle_id) BETWEEN 1 AND 255),
    apple_app_id        bigint,
    -- Environments this deployment accepts for the app ('Production', 'Sandbox', ...).
    environments        text[] NOT NULL DEFAULT ARRAY['Production', 'Sandbox'],
    -- The ownership policy's name (see docs/ownership.md); the documents' rule is the default.
    ownership_policy    text NOT NULL DEFAULT 'active_auto_renewer_keeps',
    -- The app-specific shared secret for verifyReceipt and V1 notifications; NULL when unused.
    shared_secret       text,
    -- App Store Server API credentials (issuer id, key id, the .p8 private key as PEM); NULL when unused.
    -- StoreKit 2 chains are polled through the Server API only when these are set.
    server_api_issuer_id    text,
    server_api_key_id       text,
    server_api_private_key  text,
    -- The app as the core sees it (SubLedgerCore.App: environments, policy, products), as last applied
    -- by `subledger catalog apply`; the columns above and the products tables are its queryable part.
    catalog             jsonb NOT NULL,
    created_at          timestamptz NOT NULL DEFAULT now(),
    updated_at          timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE products (
    app_id              bigint NOT NULL REFERENCES apps (app_id),
    product_id          text NOT NULL CHECK (length(product_id) BETWEEN 1 AND 255),
    product_type        text NOT NULL CHECK (product_type IN
                            ('auto_renewable', 'non_renewing', 'non_consumable', 'consumable')),
    subscription_group  text,
    credits             bigint CHECK (credits IS NULL OR credits > 0),
    duration_days       integer CHECK (duration_days IS NULL OR duration_days > 0),
    -- Apple's service level within the subscription group: 1 is the highest.
    group_level         integer CHECK (group_level IS NULL OR group_level > 0),
    created_at          timestamptz NOT NULL DEFAULT now(),
    updated_at          timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (app_id, product_id),
    CHECK (product_type <> 'consumable' OR credits IS NOT NULL),
    CHECK (product_type <> 'auto_renewable' OR subscription_group IS NOT NULL)
);

CREATE TABLE product_entitlements (
    app_id              bigint NOT NULL,
    product_id          text NOT NULL,
    entitlement_id      text NOT NULL CHECK (length(entitlement_id) BETWEEN 1 AND 255),
    PRIMARY KEY (app_id, product_id, entitlement_id),
    FOREIGN KEY (app_id, product_id) REFERENCES products (app_id, product_id) ON DELETE CASCADE
);

CREATE TABLE accounts (
    app_id              bigint NOT NULL REFERENCES apps (app_id),
    account_id          text NOT NULL CHECK (length(account_id) BETWEEN 1 AND 255),
    created_at          timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (app_id, account_id)
);

-- Raw inputs: every receipt, signed transaction and notification exactly as received, stored before
-- anything else happens, so a failure later loses nothing and the input can be replayed.
CREATE TABLE receipts (
    receipt_id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    app_id              bigint NOT NULL REFERENCES apps (app_id),
    account_id          text,
    order_id            uuid,
    -- 'app_receipt' (base64 PKCS#7 for verifyReceipt) or 'signed_transaction' (StoreKit 2 JWS).
    kind                text NOT NULL CHECK (kind IN ('app_receipt', 'signed_transaction')),
    body                text NOT NULL,
    body_sha256         bytea NOT NULL,
    client_transaction_id text,
    -- pending: stored, not yet verified; applied; invalid: Apple or verification said no (final);
    -- retry: Apple was unavailable, the poller verifies it again at next_attempt_at.
    status              text NOT NULL DEFAULT 'pending'
                            CHECK (status IN ('pending', 'applied', 'invalid', 'retry')),
    environment         text,
    attempts            integer NOT NULL DEFAULT 0,
    last_error          text,
    next_attempt_at     timestamptz,
    -- A poller working on the receipt holds it until leased_until (see `subledger poll`).
    leased_until        timestamptz,
    leased_by           text,
    received_at         timestamptz NOT NULL DEFAULT now(),
    applied_at          timestamptz,
    FOREIGN KEY (app_id, account_id) REFERENCES accounts (app_id, account_id)
);
CREATE INDEX index_receipts_on_status_and_next_attempt_at
    ON receipts (next_attempt_at) WHERE status IN ('pending', 'retry');
CREATE INDEX index_receipts_on_app_id_and_body_sha256 ON receipts (app_id, body_sha256);

CREATE TABLE notifications (
    notification_row_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    -- NULL until the payload is verified and its bundle id is known.
    app_id              bigint REFERENCES apps (app_id),
    -- V2 notificationUUID; for V1 a digest of the body.
    notification_id     text NOT NULL UNIQUE,
    version             text NOT NULL CHECK (version IN ('v1', 'v2')),
    notification_type   text,
    subtype             text,
    environment         text,
    body                text NOT NULL,
    signed_at           timestamptz,
    status              text NOT NULL DEFAULT 'pending'
                            CHECK (status IN ('pending', 'applied', 'invalid', 'retry')),
    attempts            integer NOT NULL DEFAULT 0,
    last_error          text,
    received_at         timestamptz NOT NULL DEFAULT now(),
    applied_at          timestamptz
);
CREATE INDEX index_notifications_on_status ON notifications (received_at) WHERE status IN ('pending', 'retry');

-- Subscription chains (and the single "chain" of a one-time purchase), one per original transaction.
CREATE TABLE chains (
    app_id                  bigint NOT NULL REFERENCES apps (app_id),
    environment             text NOT NULL,
    original_transaction_id text NOT NULL,
    -- The current owner; NULL while the chain is unclaimed. One column, so at most one owner.
    owner_account_id        text,
    product_id              text NOT NULL,
    product_type            text NOT NULL,
    subscription_group      text,
    state                   text NOT NULL,
    expiration_reason       text,
    expires_at              timestamptz,
    grace_expires_at        timestamptz,
    revoked_at              timestamptz,
    will_auto_renew         boolean,
    auto_renew_product_id   text,
    in_billing_retry        boolean NOT NULL DEFAULT false,
    renewal_info            jsonb,
    renewal_observed_at     timestamptz,
    -- Which Apple API can refresh this chain: 'verify_receipt' (legacy) or 'server_api' (StoreKit 2).
    refresh_via             text NOT NULL DEFAULT 'verify_receipt',
    -- The latest stored receipt that carried the chain: what the poller sends to verifyReceipt again.
    last_receipt_id         bigint REFERENCES receipts (receipt_id),
    -- Polling: when the chain is next due, how many polls in a row failed, and the current lease.
    next_poll_at            timestamptz,
    poll_failures           integer NOT NULL DEFAULT 0,
    last_polled_at          timestamptz,
    leased_until            timestamptz,
    leased_by               text,
    -- The chain as the core keeps it (SubLedgerCore.SubscriptionChain); the columns above are its
    -- queryable part, recomputed whenever it is written.
    snapshot                jsonb NOT NULL,
    created_at              timestamptz NOT NULL DEFAULT now(),
    updated_at              timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (app_id, environment, original_transaction_id),
    FOREIGN KEY (app_id, owner_account_id) REFERENCES accounts (app_id, account_id)
);
CREATE INDEX index_chains_on_app_id_and_owner_account_id
    ON chains (app_id, owner_account_id) WHERE owner_account_id IS NOT NULL;
CREATE INDEX index_chains_on_expires_at ON chains (expires_at);
CREATE INDEX index_chains_on_poll_due ON chains (next_poll_at, expires_at)
    WHERE product_type = 'auto_renewable' AND state NOT IN ('revoked', 'upgraded_away');

-- Every change of a chain's stored state (active, grace_period, billing_retry, expired, revoked,
-- upgraded_away), appended when a write finds the state different from the stored one: the history the
-- churn and audit reports read.
CREATE TABLE chain_state_changes (
    change_id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    app_id                  bigint NOT NULL,
    environment             text NOT NULL,
    original_transaction_id text NOT NULL,
    previous_state          text,
    state                   text NOT NULL,
    expiration_reason       text,
    product_id              text NOT NULL,
    changed_at              timestamptz NOT NULL,
    recorded_at             timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (app_id, environment, original_transaction_id)
        REFERENCES chains (app_id, environment, original_transaction_id)
);
CREATE INDEX index_chain_state_changes_on_chain
    ON chain_state_changes (app_id, environment, original_transaction_id, change_id);
CREATE INDEX index_chain_state_changes_on_changed_at ON chain_state_changes (app_id, changed_at);

CREATE TABLE transactions (
    app_id                  bigint NOT NULL REFERENCES apps (app_id),
    environment             text NOT NULL,
    transaction_id          text NOT NULL,
    original_transaction_id text NOT NULL,
    product_id              text NOT NULL,
    -- The account this transaction was credited to; NULL while unclaimed or deferred.
    account_id              text,
    purchase_date           timestamptz NOT NULL,
    expires_date            timestamptz,
    revocation_date         timestamptz,
    revocation_reason       integer,
    ownership_type          text NOT NULL DEFAULT 'PURCHASED',
    web_order_line_item_id  text,
    app_account_token       text,
    source                  text NOT NULL,
    -- The transaction as the core keeps it (SubLedgerCore.KnownTransaction: Apple's newest version,
    -- its observation time, its account and every revocation observed).
    payload                 jsonb NOT NULL,
    first_seen_at           timestamptz NOT NULL DEFAULT now(),
    updated_at              timestamptz NOT NULL DEFAULT now(),
    -- Apple's transaction ids are unique within an environment.
    PRIMARY KEY (app_id, environment, transaction_id),
    FOREIGN KEY (app_id, environment, original_transaction_id)
        REFERENCES chains (app_id, environment, original_transaction_id),
    FOREIGN KEY (app_id, account_id) REFERENCES accounts (app_id, account_id)
);
CREATE INDEX index_transactions_on_app_id_and_original_transaction_id
    ON transactions (app_id, environment, original_transaction_id, purchase_date);
CREATE INDEX index_transactions_on_app_id_and_account_id
    ON transactions (app_id, account_id, purchase_date) WHERE account_id IS NOT NULL;
CREATE INDEX index_transactions_on_unclaimed
    ON transactions (app_id, original_transaction_id) WHERE account_id IS NULL;

-- Who owned each chain, when, and why it changed. The current binding has ended_at NULL.
CREATE TABLE ownership_bindings (
    binding_id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    app_id                  bigint NOT NULL,
    environment             text NOT NULL,
    original_transaction_id text NOT NULL,
    -- The chain's binding number: 0 is the first claim, each transfer adds one.
    sequence                integer NOT NULL CHECK (sequence >= 0),
    account_id              text NOT NULL,
    from_account_id         text,
    -- The transaction whose arrival caused the binding (NULL for a first claim without one).
    transaction_id          text,
    started_at              timestamptz NOT NULL,
    started_reason          text NOT NULL,
    ended_at                timestamptz,
    ended_reason            text,
    recorded_at             timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (app_id, environment, original_transaction_id)
        REFERENCES chains (app_id, environment, original_transaction_id),
    FOREIGN KEY (app_id, account_id) REFERENCES accounts (app_id, account_id),
    CHECK (ended_at IS NULL OR ended_at >= started_at),
    UNIQUE (app_id, environment, original_transaction_id, sequence)
);
-- At most one current owner per original transaction.
CREATE UNIQUE INDEX index_ownership_bindings_on_current_owner
    ON ownership_bindings (app_id, environment, original_transaction_id) WHERE ended_at IS NULL;
CREATE INDEX index_ownership_bindings_on_account
    ON ownership_bindings (app_id, account_id);

-- Orders: an app's record that an account is about to buy a product. The order id doubles as the
-- StoreKit app account token (a UUID), which is how Apple's transactions find their way back.
CREATE TABLE orders (
    order_id                uuid PRIMARY KEY,
    app_id                  bigint NOT NULL REFERENCES apps (app_id),
    account_id              text NOT NULL,
    product_id              text NOT NULL,
    state                   text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'fulfilled', 'cancelled')),
    environment             text,
    fulfilled_transaction_id text,
    created_at              timestamptz NOT NULL DEFAULT now(),
    fulfilled_at            timestamptz,
    FOREIGN KEY (app_id, account_id) REFERENCES accounts (app_id, account_id),
    FOREIGN KEY (app_id, product_id) REFERENCES products (app_id, product_id),
    CHECK ((state = 'fulfilled') = (fulfilled_transaction_id IS NOT NULL))
);
-- A transaction fulfils at most one order.
CREATE UNIQUE INDEX index_orders_on_fulfilled_transaction
    ON orders (app_id, environment, fulfilled_transaction_id) WHERE fulfilled_transaction_id IS NOT NULL;
CREATE INDEX index_orders_on_pending
    ON orders (app_id, account_id, product_id, created_at) WHERE state = 'pending';

-- The ledger: every effect, append-only, exactly once (the idempotency key is derived from the source).
CREATE TABLE ledger_entries (
    entry_id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    app_id                  bigint NOT NULL REFERENCES apps (app_id),
    idempotency_key         text NOT NULL,
    kind                    text NOT NULL CHECK (kind IN
                                ('grant', 'extend', 'revoke', 'restore', 'transfer_out', 'transfer_in', 'credit', 'debit')),
    account_id              text,
    environment             text NOT NULL,
    original_transaction_id text NOT NULL,
    transaction_id          text,
    product_id              text NOT NULL,
    entitlement_ids         text[] NOT NULL DEFAULT '{}',
    credits                 bigint,
    effective_at            timestamptz NOT NULL,
    period_end              timestamptz,
    reason                  text,
    receipt_id              bigint REFERENCES receipts (receipt_id),
    notification_row_id     bigint REFERENCES notifications (notification_row_id),
    recorded_at             timestamptz NOT NULL DEFAULT now(),
    UNIQUE (app_id, idempotency_key),
    FOREIGN KEY (app_id, account_id) REFERENCES accounts (app_id, account_id)
);
CREATE INDEX index_ledger_entries_on_app_id_and_account_id ON ledger_entries (app_id, account_id, entry_id);
CREATE INDEX index_ledger_entries_on_original_transaction_id
    ON ledger_entries (app_id, environment, original_transaction_id, entry_id);

CREATE FUNCTION ledger_entries_are_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'ledger entries are append-only: % refused', TG_OP
        USING ERRCODE = 'restrict_violation';
END
$$;
CREATE TRIGGER ledger_entries_no_update BEFORE UPDATE OR DELETE ON ledger_entries
    FOR EACH ROW EXECUTE FUNCTION ledger_entries_are_append_only();
CREATE TRIGGER ledger_entries_no_truncate BEFORE TRUNCATE ON ledger_entries
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_entries_are_append_only();

-- API keys for app servers (scoped to one app) and admins (app_id NULL). Only a hash is stored.
CREATE TABLE api_keys (
    key_id                  uuid PRIMARY KEY,
    app_id                  bigint REFERENCES apps (app_id),
    scope                   text NOT NULL CHECK (scope IN ('app', 'admin')),
    name                    text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    -- The first characters of the key, shown in listings so people can tell keys apart.
    prefix                  text NOT NULL,
    key_sha256              bytea NOT NULL UNIQUE,
    created_at              timestamptz NOT NULL DEFAULT now(),
    revoked_at              timestamptz,
    last_used_at            timestamptz,
    CHECK ((scope = 'app') = (app_id IS NOT NULL))
);

-- step 2: report indexes

-- summary and active: an index-only scan of every chain's state columns, per app and product.
CREATE INDEX index_chains_on_app_id_and_product_id_and_state
    ON chains (app_id, product_id, state)
    INCLUDE (environment, product_type, expires_at, in_billing_retry, grace_expires_at, owner_account_id);
-- churn (grant and extend entries) and refunds (revoke and debit entries) over a time range.
CREATE INDEX index_ledger_entries_on_app_id_and_kind_and_effective_at
    ON ledger_entries (app_id, kind, effective_at);
-- transfers over a time range: bindings after the first claim.
CREATE INDEX index_ownership_bindings_on_app_id_and_started_at
    ON ownership_bindings (app_id, started_at) WHERE sequence > 0;
-- active subscriptions over time: the transactions still running after a day, index-only.
CREATE INDEX index_transactions_on_app_id_and_expires_date
    ON transactions (app_id, expires_date) INCLUDE (environment, purchase_date, revocation_date);

-- step 3: apps' secrets sealed at rest

-- The apps' secrets sealed with AES-256-GCM under a SubLedger secret key (docs/operations.md, "Secrets at
-- rest"): `*_sealed` is the nonce, ciphertext and tag; `*_key_id` names the key (a fingerprint of it); the
-- associated data is the field and the bundle id, so a sealed value opens only as the secret it was sealed
-- as. The plaintext columns of step 1 stay for rows written before this step (and for deployments that
-- explicitly store secrets unsealed); `subledger secrets rotate-key` seals them and empties them. A field
-- is never both sealed and plaintext.
ALTER TABLE apps
    ADD COLUMN shared_secret_sealed bytea,
    ADD COLUMN shared_secret_key_id text,
    ADD COLUMN server_api_private_key_sealed bytea,
    ADD COLUMN server_api_private_key_key_id text,
    ADD CONSTRAINT apps_shared_secret_sealed_names_its_key
        CHECK ((shared_secret_sealed IS NULL) = (shared_secret_key_id IS NULL)),
    ADD CONSTRAINT apps_shared_secret_sealed_or_plaintext
        CHECK (shared_secret IS NULL OR shared_secret_sealed IS NULL),
    ADD CONSTRAINT apps_server_api_private_key_sealed_names_its_key
        CHECK ((server_api_private_key_sealed IS NULL) = (server_api_private_key_key_id IS NULL)),
    ADD CONSTRAINT apps_server_api_private_key_sealed_or_plaintext
        CHECK (server_api_private_key IS NULL OR server_api_private_key_sealed IS NULL);

-- step 4: stored inputs back off and end quarantined; the renewal job applies stranded notifications

-- quarantined: the input kept failing (its last error is kept) and is no longer retried; the
-- `quarantined` report lists them. Receipts and notifications share the lifecycle.
ALTER TABLE receipts DROP CONSTRAINT receipts_status_check;
ALTER TABLE receipts ADD CONSTRAINT receipts_status_check
    CHECK (status IN ('pending', 'applied', 'invalid', 'retry', 'quarantined'));
ALTER TABLE notifications DROP CONSTRAINT notifications_status_check;
ALTER TABLE notifications ADD CONSTRAINT notifications_status_check
    CHECK (status IN ('pending', 'applied', 'invalid', 'retry', 'quarantined'));
-- A notification stored but not applied (the process died, or applying it failed) is the job's work too.
ALTER TABLE notifications ADD COLUMN next_attempt_at timestamptz;
ALTER TABLE notifications ADD COLUMN leased_until timestamptz;
ALTER TABLE notifications ADD COLUMN leased_by text;
CREATE INDEX index_notifications_on_next_attempt_at
    ON notifications (next_attempt_at) WHERE status IN ('pending', 'retry');
-- The quarantined report, newest first.
CREATE INDEX index_receipts_on_received_at_quarantined ON receipts (received_at) WHERE status = 'quarantined';
CREATE INDEX index_notifications_on_received_at_quarantined
    ON notifications (received_at) WHERE status = 'quarantined';

-- step 5: renewal-date extensions: each request to Apple, per subscription and en masse

-- A mass extension (Extend Subscription Renewal Dates for All Active Subscribers) of one product: what was
-- asked, by whom, and what Apple's Get Status answered last. `subledger subscriptions extend-status` resumes
-- polling from here.
CREATE TABLE renewal_extension_requests (
    app_id                   bigint NOT NULL REFERENCES apps (app_id),
    request_identifier       text NOT NULL,
    environment              text NOT NULL,
    product_id               text NOT NULL,
    storefront_country_codes text[],
    days                     integer NOT NULL CHECK (days BETWEEN 1 AND 90),
    reason_code              integer NOT NULL CHECK (reason_code BETWEEN 0 AND 3),
    requested_by             text NOT NULL,
    requested_at             timestamptz NOT NULL,
    -- requested: recorded, Apple not yet answered; submitted: Apple accepted it; complete: Apple finished;
    -- refused: Apple refused the request.
    status                   text NOT NULL CHECK (status IN ('requested', 'submitted', 'complete', 'refused')),
    apple_error              text,
    complete_date            timestamptz,
    succeeded_count          bigint,
    failed_count             bigint,
    updated_at               timestamptz NOT NULL,
    PRIMARY KEY (app_id, request_identifier)
);

-- One subscription's extension: a single request (Extend a Subscription Renewal Date), or its part in a mass
-- request (`mass = true`, same request identifier). Rows counted by Apple's limit (two per 365 days) are
-- those `requested` (outcome unknown yet) or `succeeded`.
CREATE TABLE renewal_extensions (
    app_id                  bigint NOT NULL REFERENCES apps (app_id),
    environment             text NOT NULL,
    original_transaction_id text NOT NULL,
    request_identifier      text NOT NULL,
    mass                    boolean NOT NULL DEFAULT false,
    days                    integer NOT NULL CHECK (days BETWEEN 1 AND 90),
    reason_code             integer NOT NULL CHECK (reason_code BETWEEN 0 AND 3),
    requested_by            text NOT NULL,
    requested_at            timestamptz NOT NULL,
    -- The chain's expiry when the extension was asked for: a mass member succeeded if it moved by `days`.
    expires_before          timestamptz,
    -- requested: Apple not yet answered; succeeded: extended; refused: Apple (or, for a mass member, Apple's
    -- processing) did not extend it; failed: the call failed and its outcome is unknown to Apple's answer.
    status                  text NOT NULL CHECK (status IN ('requested', 'succeeded', 'refused', 'failed')),
    apple_error             text,
    effective_date          timestamptz,
    web_order_line_item_id  text,
    answered_at             timestamptz,
    PRIMARY KEY (app_id, environment, original_transaction_id, request_identifier),
    FOREIGN KEY (app_id, environment, original_transaction_id)
        REFERENCES chains (app_id, environment, original_transaction_id),
    CHECK (NOT mass OR expires_before IS NOT NULL)
);
CREATE INDEX index_renewal_extensions_on_app_id_and_request_identifier
    ON renewal_extensions (app_id, request_identifier);

-- step 6: notification history cursors for missed-notification recovery

-- How far each app's notification history is known complete, per environment: every notification Apple
-- created before `complete_until` has been fetched from Get Notification History and fed through the
-- ingestion (`subledger notifications recover`, and the recovery service of `subledger poll`). NULL: no
-- window was ever completed. A recovery holds the row's lease (`leased_until`, `leased_by`) while it works,
-- so two processes never fetch the same app and environment at once; a lease whose process died runs out.
CREATE TABLE notification_history_cursors (
    app_id              bigint NOT NULL REFERENCES apps (app_id),
    environment         text NOT NULL CHECK (length(environment) BETWEEN 1 AND 32),
    complete_until      timestamptz,
    leased_until        timestamptz,
    leased_by           text,
    last_run_at         timestamptz,
    -- 'complete', 'partial' (stopped early; the cursor kept what was done), 'failed'
    last_result         text CHECK (last_result IN ('complete', 'partial', 'failed')),
    last_error          text,
    updated_at          timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (app_id, environment),
    CHECK ((leased_until IS NULL) = (leased_by IS NULL))
);

-- step 7: consumption requests (Apple asks about a refund), the customers' consent and the apps' usage reports

-- A customer's consent to share consumption data with Apple, as the app server recorded it (granted or
-- withdrawn, with when). Append-only: the latest `consented_at` (then the latest row) is in force.
CREATE TABLE consumption_consents (
    consent_id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    app_id                  bigint NOT NULL,
    account_id              text NOT NULL,
    consented               boolean NOT NULL,
    consented_at            timestamptz NOT NULL,
    recorded_at             timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (app_id, account_id) REFERENCES accounts (app_id, account_id)
);
CREATE INDEX index_consumption_consents_on_app_id_and_account_id
    ON consumption_consents (app_id, account_id, consented_at, consent_id);

-- What the app server reported about the use of one transaction. Append-only: for each field, the latest
-- report that states it is in force.
CREATE TABLE consumption_usage_reports (
    usage_id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    app_id                  bigint NOT NULL,
    account_id              text NOT NULL,
    transaction_id          text NOT NULL,
    consumed_milliunits     integer CHECK (consumed_milliunits BETWEEN 0 AND 100000),
    play_time_minutes       bigint CHECK (play_time_minutes >= 0),
    sample_content_provided boolean,
    delivery_status         text CHECK (delivery_status IN ('delivered', 'undelivered_quality_issue',
                                'undelivered_wrong_item', 'undelivered_server_outage', 'undelivered_other')),
    recorded_at             timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (app_id, account_id) REFERENCES accounts (app_id, account_id)
);
CREATE INDEX index_consumption_usage_reports_on_app_id_and_transaction_id
    ON consumption_usage_reports (app_id, transaction_id, usage_id);

CREATE FUNCTION consumption_reports_are_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'consent and usage reports are append-only: % refused', TG_OP
        USING ERRCODE = 'restrict_violation';
END
$$;
CREATE TRIGGER consumption_consents_no_update BEFORE UPDATE OR DELETE ON consumption_consents
    FOR EACH ROW EXECUTE FUNCTION consumption_reports_are_append_only();
CREATE TRIGGER consumption_usage_reports_no_update BEFORE UPDATE OR DELETE ON consumption_usage_reports
    FOR EACH ROW EXECUTE FUNCTION consumption_reports_are_append_only();

-- One CONSUMPTION_REQUEST notification: recorded in the transaction that applies the notification (a replay
-- finds its row), answered by the renewal job within Apple's 12 hours. pending/retry: to be answered
-- (leased like the job's other work); sent: Apple accepted the answer; skipped_no_consent /
-- skipped_disabled: nothing was sent; failed: Apple refused it (4xx, final) or the deadline passed.
CREATE TABLE consumption_requests (
    request_id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    app_id                  bigint NOT NULL REFERENCES apps (app_id),
    notification_row_id     bigint NOT NULL UNIQUE REFERENCES notifications (notification_row_id),
    environment             text NOT NULL,
    transaction_id          text NOT NULL,
    original_transaction_id text NOT NULL,
    requested_at            timestamptz NOT NULL,
    deadline_at             timestamptz NOT NULL,
    state                   text NOT NULL DEFAULT 'pending' CHECK (state IN
                                ('pending', 'retry', 'sent', 'skipped_no_consent', 'skipped_disabled', 'failed')),
    attempts                integer NOT NULL DEFAULT 0,
    next_attempt_at         timestamptz,
    leased_until            timestamptz,
    leased_by               text,
    last_error              text,
    answered_at             timestamptz,
    recorded_at             timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX index_consumption_requests_on_due
    ON consumption_requests (next_attempt_at) WHERE state IN ('pending', 'retry');
CREATE INDEX index_consumption_requests_on_app_id_and_requested_at
    ON consumption_requests (app_id, requested_at);

-- The audit trail: every decision and every call to Apple for a request, with what was sent and Apple's answer.
CREATE TABLE consumption_request_attempts (
    attempt_id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    request_id              bigint NOT NULL REFERENCES consumption_requests (request_id),
    -- accepted (Apple answered 2xx), transient_failure (retried), final_failure (4xx, or past the deadline),
    -- skipped_no_consent, skipped_disabled.
    outcome                 text NOT NULL CHECK (outcome IN ('accepted', 'transient_failure', 'final_failure',
                                'skipped_no_consent', 'skipped_disabled')),
    endpoint                text CHECK (endpoint IN ('v1', 'v2')),
    body                    jsonb,
    http_status             integer,
    apple_error_code        bigint,
    detail                  text,
    attempted_at            timestamptz NOT NULL
);
CREATE INDEX index_consumption_request_attempts_on_request_id
    ON consumption_request_attempts (request_id, attempt_id);

-- step 8: migration imports keep a checkpoint: one run per CSV file (by digest), each row's status

-- `subledger import FILE` records every row it finished here, so after a crash or Ctrl-C the same file
-- resumes where it stopped. A `done` row is skipped on a re-run; a `failed` row is tried again.
CREATE TABLE import_runs (
    import_run_id bigserial PRIMARY KEY,
    file_digest text NOT NULL UNIQUE CHECK (file_digest ~ '^[0-9a-f]{64}$'),
    file_name text NOT NULL CHECK (length(file_name) <= 1024),
    total_rows integer NOT NULL CHECK (total_rows >= 0),
    started_at timestamptz NOT NULL DEFAULT now(),
    finished_at timestamptz
);
CREATE TABLE import_rows (
    import_run_id bigint NOT NULL REFERENCES import_runs ON DELETE CASCADE,
    line_number integer NOT NULL CHECK (line_number > 0),
    status text NOT NULL CHECK (status IN ('done', 'failed')),
    account_id text NOT NULL,
    original_transaction_id text,
    transactions integer NOT NULL DEFAULT 0 CHECK (transactions >= 0),
    reason text CHECK (length(reason) <= 1000),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (import_run_id, line_number)
);

-- step 9: support lookups by app account token

-- `subledger support token UUID` and `/v1/admin/lookup/token/{uuid}` find the transactions that carry an
-- app account token, whatever case Apple sent it in.
CREATE INDEX index_transactions_on_app_id_and_lower_app_account_token
    ON transactions (app_id, lower(app_account_token)) WHERE app_account_token IS NOT NULL;

-- step 10: webhooks: an outbox of events written with their ledger effects, endpoints and deliveries

-- The outbox. An event is inserted in the same transaction as the ledger effect (or the clock's
-- decision) that causes it, so there is no event without its effect and no effect without its event.
-- `idempotency_key` is derived from the cause (the input, the transaction, the expiry moment) so that a
-- replayed input inserts nothing new. `body` is the event exactly as it is delivered (JSON text,
-- docs/webhooks.md): a replay sends the same bytes.
CREATE TABLE webhook_events (
    event_id                uuid PRIMARY KEY,
    app_id                  bigint NOT NULL REFERENCES apps (app_id),
    environment             text NOT NULL,
    -- The account the event is about; NULL only for events about no account (transaction.unclaimed
    -- before any claim, refund.requested for an unclaimed transaction).
    account_id              text,
    -- Per (app, environment, account): 1, 2, 3, ... in commit order of the events of that account.
    account_sequence        bigint CHECK (account_sequence > 0),
    event_type              text NOT NULL CHECK (length(event_type) BETWEEN 1 AND 100),
    occurred_at             timestamptz NOT NULL,
    -- What caused it: 'notification' (cause_id: Apple's notification UUID), 'receipt' (receipt_id),
    -- 'transaction' (transaction id), 'poll', 'clock', 'admin' (an operator's command), 'test'.
    cause_kind              text NOT NULL CHECK (cause_kind IN
                                ('notification', 'receipt', 'transaction', 'poll', 'clock', 'admin', 'test')),
    cause_id                text,
    idempotency_key         text NOT NULL CHECK (length(idempotency_key) BETWEEN 1 AND 1000),
    body                    text NOT NULL,
    created_at              timestamptz NOT NULL DEFAULT now(),
    UNIQUE (app_id, idempotency_key),
    CHECK ((account_id IS NULL) = (account_sequence IS NULL))
);
CREATE UNIQUE INDEX index_webhook_events_on_account_sequence
    ON webhook_events (app_id, environment, account_id, account_sequence) WHERE account_id IS NOT NULL;
CREATE INDEX index_webhook_events_on_created_at ON webhook_events (app_id, created_at);

-- The last sequence number handed out per account (UPDATE ... RETURNING serializes writers of one account).
CREATE TABLE webhook_account_sequences (
    app_id                  bigint NOT NULL REFERENCES apps (app_id),
    environment             text NOT NULL,
    account_id              text NOT NULL,
    last_sequence           bigint NOT NULL CHECK (last_sequence > 0),
    PRIMARY KEY (app_id, environment, account_id)
);

-- Where an app's events go. The signing secrets are sealed like the apps' secrets when a SubLedger
-- secret key is configured (`*_sealed` + `*_key_id`), plaintext otherwise; during a rotation the
-- previous secret stays valid until `previous_secret_expires_at`, so requests carry two signatures.
CREATE TABLE webhook_endpoints (
    endpoint_id             uuid PRIMARY KEY,
    app_id                  bigint NOT NULL REFERENCES apps (app_id),
    url                     text NOT NULL CHECK (length(url) BETWEEN 1 AND 2048),
    description             text CHECK (length(description) <= 500),
    -- Empty: every event type (and every environment).
    event_types             text[] NOT NULL DEFAULT '{}',
    environments            text[] NOT NULL DEFAULT '{}',
    -- Added with the explicit flag that allows private network addresses (docs/webhooks.md).
    allow_private_network   boolean NOT NULL DEFAULT false,
    state                   text NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'paused', 'removed')),
    -- Why it is paused: 'manual' (an operator) or 'failing' (deliveries kept failing).
    paused_reason           text CHECK (paused_reason IN ('manual', 'failing')),
    paused_at               timestamptz,
    consecutive_failures    integer NOT NULL DEFAULT 0 CHECK (consecutive_failures >= 0),
    secret                  text,
    secret_sealed           bytea,
    secret_key_id           text,
    previous_secret         text,
    previous_secret_sealed  bytea,
    previous_secret_key_id  text,
    previous_secret_expires_at timestamptz,
    created_at              timestamptz NOT NULL DEFAULT now(),
    updated_at              timestamptz NOT NULL DEFAULT now(),
    removed_at              timestamptz,
    CHECK ((state = 'paused') = (paused_reason IS NOT NULL)),
    CHECK ((secret IS NULL) <> (secret_sealed IS NULL)),
    CHECK ((secret_sealed IS NULL) = (secret_key_id IS NULL)),
    CHECK (previous_secret IS NULL OR previous_secret_sealed IS NULL),
    CHECK ((previous_secret_sealed IS NULL) = (previous_secret_key_id IS NULL))
);
CREATE INDEX index_webhook_endpoints_on_app_id ON webhook_endpoints (app_id) WHERE state <> 'removed';

-- One row per (event, endpoint) to deliver; a replay adds new rows. Deliverers claim due rows with
-- FOR UPDATE SKIP LOCKED and a lease, like the renewal job; a lease that runs out is taken over.
CREATE TABLE webhook_deliveries (
    delivery_id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_id                uuid NOT NULL REFERENCES webhook_events (event_id),
    endpoint_id             uuid NOT NULL REFERENCES webhook_endpoints (endpoint_id),
    state                   text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'failed')),
    attempts                integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    next_attempt_at         timestamptz NOT NULL DEFAULT now(),
    leased_until            timestamptz,
    leased_by               text,
    last_attempt_at         timestamptz,
    last_status             integer,
    last_error              text,
    delivered_at            timestamptz,
    -- Why the row exists: 'event' (fan-out when the event was written), 'replay', 'test'.
    origin                  text NOT NULL DEFAULT 'event' CHECK (origin IN ('event', 'replay', 'test')),
    created_at              timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX index_webhook_deliveries_on_due
    ON webhook_deliveries (next_attempt_at) WHERE state = 'pending';
CREATE INDEX index_webhook_deliveries_on_endpoint ON webhook_deliveries (endpoint_id, delivery_id);
CREATE INDEX index_webhook_deliveries_on_event ON webhook_deliveries (event_id);

-- Every attempt, for `webhooks deliveries` and the admin page's recent failures.
CREATE TABLE webhook_delivery_attempts (
    attempt_id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    delivery_id             bigint NOT NULL REFERENCES webhook_deliveries (delivery_id),
    attempted_at            timestamptz NOT NULL,
    duration_ms             integer,
    -- The receiver's status; NULL when no response came (the error says why).
    status                  integer,
    error                   text CHECK (length(error) <= 2000),
    deliverer               text NOT NULL
);
CREATE INDEX index_webhook_delivery_attempts_on_delivery ON webhook_delivery_attempts (delivery_id, attempt_id);
CREATE INDEX index_webhook_delivery_attempts_on_attempted_at ON webhook_delivery_attempts (attempted_at);

-- Fan-out: an event becomes one delivery per matching endpoint of its app, in the event's own
-- transaction (paused endpoints included: resuming delivers their backlog), and deliverers are woken.
-- A test event (`webhooks test`) goes only where its command sends it.
CREATE FUNCTION webhook_events_fan_out() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.cause_kind = 'test' THEN
        RETURN NULL;
    END IF;
    INSERT INTO webhook_deliveries (event_id, endpoint_id)
    SELECT NEW.event_id, e.endpoint_id
    FROM webhook_endpoints e
    WHERE e.app_id = NEW.app_id
      AND e.state <> 'removed'
      AND (cardinality(e.event_types) = 0 OR NEW.event_type = ANY (e.event_types))
      AND (cardinality(e.environments) = 0 OR NEW.environment = ANY (e.environments));
    IF FOUND THEN
        PERFORM pg_notify('subledger_webhooks', '');
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER webhook_events_fan_out AFTER INSERT ON webhook_events
    FOR EACH ROW EXECUTE FUNCTION webhook_events_fan_out();

-- step 11: webhooks: the clock's moments, when an account's access from a chain ends unless something happens first
-- One row per chain that grants access until a known instant (the end of its period, or of its grace
-- period), kept by the apply transaction that moves that instant. The webhook clock (`subledger poll`)
-- takes due rows with FOR UPDATE SKIP LOCKED, decides with the chain as it stands whether access really
-- ended then (a renewal that came first means no event), writes `entitlement.expired` through the outbox
-- (its idempotency key names the chain and the moment, so several clocks write it once) and deletes or
-- moves the row.
CREATE TABLE webhook_clock_moments (
    app_id                  bigint NOT NULL REFERENCES apps (app_id),
    environment             text NOT NULL,
    original_transaction_id text NOT NULL,
    due_at                  timestamptz NOT NULL,
    PRIMARY KEY (app_id, environment, original_transaction_id)
);
CREATE INDEX index_webhook_clock_moments_on_due_at ON webhook_clock_moments (due_at);
-- Chains that already grant access when this step runs get their moment, so their expiries are told too;
-- ends already past are left alone (no burst of old expiries at the upgrade).
INSERT INTO webhook_clock_moments (app_id, environment, original_transaction_id, due_at)
SELECT app_id, environment, original_transaction_id,
       CASE WHEN state = 'grace_period' THEN grace_expires_at ELSE expires_at END
FROM chains
WHERE owner_account_id IS NOT NULL AND state IN ('active', 'grace_period')
  AND CASE WHEN state = 'grace_period' THEN grace_expires_at ELSE expires_at END > now();

-- step 12: webhook delivery: when an endpoint's current run of failures began (automatic pausing)
-- Set by the first failure after a success, cleared by a success; an endpoint whose failures have run for
-- an hour and number at least ten is paused as 'failing' (docs/webhooks.md, "Delivery").
ALTER TABLE webhook_endpoints ADD COLUMN failing_since timestamptz;

-- step 13: entitlement read model: each account's entitlement periods, kept by every apply

-- What an entitlement read needs, per account, in the form it needs it (`EntitlementPeriod` in SubLedgerCore):
-- for each chain, the periods during which it gives one account the same grant, in milliseconds since 1970
-- (`valid_until` exclusive, NULL for ever). `LedgerStore.apply` rewrites a chain's periods in the transaction
-- that changes the chain (`EntitlementPeriodRows.refresh`). A row without a state sends the read to the chains
-- (a non-renewing purchase, whose end is the catalog's duration). Entitlement ids are not stored: the read maps
-- the product through the catalog, so a catalog change needs no rewrite.
CREATE TABLE account_entitlement_periods (
    app_id                  bigint NOT NULL,
    environment             text NOT NULL,
    original_transaction_id text NOT NULL,
    account_id              text NOT NULL,
    valid_from              bigint NOT NULL,
    valid_until             bigint,
    transaction_id          text,
    product_id              text,
    state                   text CHECK (state IN ('active', 'grace_period')),
    expires_at              bigint,
    grace_expires_at        bigint,
    will_auto_renew         boolean,
    ownership_type          text,
    CHECK (valid_until IS NULL OR valid_until > valid_from),
    CHECK ((state IS NULL) = (transaction_id IS NULL) AND (state IS NULL) = (product_id IS NULL))
);
CREATE INDEX index_account_entitlement_periods_on_account
    ON account_entitlement_periods (app_id, account_id, valid_from);
CREATE INDEX index_account_entitlement_periods_on_chain
    ON account_entitlement_periods (app_id, environment, original_transaction_id);

-- Accounts whose periods may be incomplete: every account that had a chain when this step ran (their chains were
-- written before the read model existed). A read of such an account answers from the chains and then writes
-- the periods of all its chains and removes the row (`LedgerStore.backfillEntitlementPeriods`); so does
-- `LedgerStore.backfillEntitlementPeriods(app:limit:)` for a whole app.
CREATE TABLE account_entitlement_backfill (
    app_id     bigint NOT NULL,
    account_id text NOT NULL,
    PRIMARY KEY (app_id, account_id)
);
INSERT INTO account_entitlement_backfill (app_id, account_id)
    SELECT DISTINCT app_id, account_id FROM ownership_bindings;

-- step 14: revenue: each transaction's price as Apple sent it, catalog price points, exchange rates, the small business program, tax rates

-- What Apple says a transaction cost (StoreKit 2's `price` in milli-units, `currency`, `storefront`, and the offer
-- it was bought under). verifyReceipt sends none of these: such transactions are priced from `catalog_prices`
-- and marked estimated. Filled for stored transactions from the kept payload.
ALTER TABLE transactions
    ADD COLUMN price_milliunits bigint CHECK (price_milliunits IS NULL OR price_milliunits >= 0),
    ADD COLUMN currency text CHECK (currency IS NULL OR currency ~ '^[A-Z]{3}$'),
    ADD COLUMN storefront text CHECK (storefront IS NULL OR storefront ~ '^[A-Z]{3}$'),
    ADD COLUMN offer_type integer CHECK (offer_type IS NULL OR offer_type BETWEEN 1 AND 99),
    ADD COLUMN offer_discount_type text CHECK (offer_discount_type IS NULL OR length(offer_discount_type) <= 64),
    ADD COLUMN is_trial_period boolean NOT NULL DEFAULT false,
    ADD COLUMN is_in_intro_offer_period boolean NOT NULL DEFAULT false;
UPDATE transactions SET
    price_milliunits = CASE WHEN jsonb_typeof(payload->'transaction'->'price') = 'number'
            AND (payload->'transaction'->>'price')::numeric BETWEEN 0 AND 9223372036854775807
        THEN (payload->'transaction'->>'price')::numeric::bigint END,
    currency = CASE WHEN payload->'transaction'->>'currency' ~ '^[A-Z]{3}$'
        THEN payload->'transaction'->>'currency' END,
    storefront = CASE WHEN payload->'transaction'->>'storefront' ~ '^[A-Z]{3}$'
        THEN payload->'transaction'->>'storefront' END,
    offer_type = CASE WHEN jsonb_typeof(payload->'transaction'->'offerType') = 'number'
            AND (payload->'transaction'->>'offerType')::numeric BETWEEN 1 AND 99
        THEN (payload->'transaction'->>'offerType')::numeric::integer END,
    offer_discount_type = CASE WHEN length(payload->'transaction'->>'offerDiscountType') <= 64
        THEN payload->'transaction'->>'offerDiscountType' END,
    is_trial_period = coalesce((payload->'transaction'->>'isTrialPeriod')::boolean, false),
    is_in_intro_offer_period = coalesce((payload->'transaction'->>'isInIntroOfferPeriod')::boolean, false);

-- Price points for transactions Apple sent without a price: per product and storefront (NULL: every storefront
-- without its own row), effective from a moment until the next row's. `subledger catalog apply` writes them.
CREATE TABLE catalog_prices (
    price_point_id      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    app_id              bigint NOT NULL,
    product_id          text NOT NULL,
    storefront          text CHECK (storefront IS NULL OR storefront ~ '^[A-Z]{3}$'),
    currency            text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    price_milliunits    bigint NOT NULL CHECK (price_milliunits >= 0),
    effective_from      timestamptz NOT NULL,
    created_at          timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (app_id, product_id) REFERENCES products (app_id, product_id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX index_catalog_prices_on_point
    ON catalog_prices (app_id, product_id, coalesce(storefront, ''), effective_from);

-- Exchange rates: one unit of `currency` is worth `rate` units of the reporting currency on `rate_date`
-- (`subledger fx apply`). A report uses the nearest earlier date and reports a missing rate, never a guess.
CREATE TABLE exchange_rates (
    reporting_currency  text NOT NULL CHECK (reporting_currency ~ '^[A-Z]{3}$'),
    currency            text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    rate_date           date NOT NULL,
    rate                numeric(24, 12) NOT NULL CHECK (rate > 0),
    loaded_at           timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (reporting_currency, currency, rate_date)
);

-- Apple's App Store Small Business Program: periods during which an app's commission is 15 %.
CREATE TABLE app_small_business_periods (
    app_id              bigint NOT NULL REFERENCES apps (app_id),
    effective_from      date NOT NULL,
    effective_until     date,
    PRIMARY KEY (app_id, effective_from),
    CHECK (effective_until IS NULL OR effective_until > effective_from)
);

-- Optional tax rates per storefront (the share of a customer price that is tax, deducted before commission),
-- effective from a date until the next row's.
CREATE TABLE storefront_tax_rates (
    storefront          text NOT NULL CHECK (storefront ~ '^[A-Z]{3}$'),
    effective_from      date NOT NULL,
    rate                numeric(7, 6) NOT NULL CHECK (rate >= 0 AND rate < 1),
    PRIMARY KEY (storefront, effective_from)
);

-- Every transaction's amount: Apple's price, else the catalog's price point for its product and storefront
-- in force at the purchase (`estimated`), else none (`amount_milliunits` NULL: reported as unpriced). Free trials
-- cost 0 whatever the catalog says.
CREATE VIEW transaction_amounts AS
SELECT t.app_id, t.environment, t.transaction_id, t.original_transaction_id, t.product_id, t.account_id,
    t.purchase_date, t.expires_date, t.revocation_date, t.storefront, t.offer_type, t.offer_discount_type,
    t.is_trial_period, t.is_in_intro_offer_period,
    CASE WHEN t.is_trial_period OR t.offer_discount_type = 'FREE_TRIAL' THEN 0
        ELSE coalesce(t.price_milliunits, catalog.price_milliunits) END AS amount_milliunits,
    coalesce(t.currency, catalog.currency) AS currency,
    (t.price_milliunits IS NULL AND NOT (t.is_trial_period OR t.offer_discount_type IS NOT DISTINCT FROM 'FREE_TRIAL')
        AND catalog.price_milliunits IS NOT NULL) AS estimated
FROM transactions t
LEFT JOIN LATERAL (
    SELECT p.price_milliunits, p.currency FROM catalog_prices p
    WHERE p.app_id = t.app_id AND p.product_id = t.product_id AND t.price_milliunits IS NULL
        AND (p.storefront = t.storefront OR p.storefront IS NULL) AND p.effective_from <= t.purchase_date
    ORDER BY (p.storefront IS NULL), p.effective_from DESC
    LIMIT 1
) catalog ON true;

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

-- step 16: report indexes for a large ledger (issue 16): every report under a second on 1,000,000 chains

-- active: the transactions bought under an offer (a few per chain at most), with what the report reads.
CREATE INDEX index_transactions_on_offers
    ON transactions (app_id, environment, original_transaction_id, purchase_date, transaction_id)
    INCLUDE (is_trial_period, is_in_intro_offer_period)
    WHERE is_trial_period OR is_in_intro_offer_period;
-- active (is a later transaction purchased by then?) and every read of a chain's transactions in order: the
-- transaction id as the tie-break, so the probe is index-only. Replaces the index without it.
CREATE INDEX index_transactions_on_chain_and_purchase_date
    ON transactions (app_id, environment, original_transaction_id, purchase_date, transaction_id);
DROP INDEX index_transactions_on_app_id_and_original_transaction_id;
-- summary --at: each chain's latest recorded state by then, read in index order (no sort of every change).
CREATE INDEX index_chain_state_changes_on_chain_and_changed_at
    ON chain_state_changes (app_id, environment, original_transaction_id, changed_at DESC, change_id DESC)
    INCLUDE (product_id, state);
-- churn: expiries and recoveries over a time range, index-only.
CREATE INDEX index_chain_state_changes_on_state_and_changed_at
    ON chain_state_changes (app_id, state, changed_at)
    INCLUDE (environment, previous_state, expiration_reason);
-- churn and refunds: ledger entries of a kind over a time range with the columns they filter on, index-only.
-- Replaces the index without them.
CREATE INDEX index_ledger_entries_on_kind_and_effective_at
    ON ledger_entries (app_id, kind, effective_at)
    INCLUDE (environment, product_id, reason);
DROP INDEX index_ledger_entries_on_app_id_and_kind_and_effective_at;
-- unclaimed: the newest transactions without an account read backwards in order (the list stops after its
-- limit instead of sorting every unclaimed transaction), and counted per app and environment index-only.
CREATE INDEX index_transactions_on_unclaimed_and_purchase_date
    ON transactions (purchase_date, transaction_id) INCLUDE (app_id, environment)
    WHERE account_id IS NULL;

-- step 17: cohort reports: a per-chain aggregate of what trials and retention read, kept by every apply

-- Per chain, what the `retention` and `trials` reports need (docs/reports.md, "Cohort facts"): the first payment
-- (NULL: none), the months since it that a payment covered (bit k; months 0 to 61), the money of its paid
-- transactions per month since the first payment, currency and purchase day (parallel arrays, ordered by those),
-- and its first offer (free trial or paid intro), whether that converted and until when an offer runs. Written by
-- `LedgerStore.apply` for the chains it changes, in its transaction, from `chain_cohort_facts_of`; recomputed
-- for a whole app by `LedgerStore.refreshCohortFacts(app:)` when catalog prices or product types change.
-- A chain with neither a payment nor an offer has no row.
CREATE TABLE chain_cohort_facts (
    app_id                  bigint NOT NULL,
    environment             text NOT NULL,
    original_transaction_id text NOT NULL,
    first_paid_at           timestamptz,
    paid_mask               bigint NOT NULL,
    money_months            integer[] NOT NULL,
    money_currencies        text[] NOT NULL,
    money_days              date[] NOT NULL,
    money_gross             bigint[] NOT NULL,
    money_refunded          bigint[] NOT NULL,
    money_estimated         integer[] NOT NULL,
    money_unpriced          integer[] NOT NULL,
    money_priced            integer[] NOT NULL,
    offer_started_at        timestamptz,
    offer_product_id        text,
    offer_is_trial          boolean,
    offer_converted         boolean,
    offer_running_until     timestamptz,
    PRIMARY KEY (app_id, environment, original_transaction_id)
);
COMMENT ON TABLE chain_cohort_facts IS 'citus: distributed by original_transaction_id';
CREATE INDEX index_chain_cohort_facts_on_app_id_and_first_paid_at
    ON chain_cohort_facts (app_id, first_paid_at) WHERE first_paid_at IS NOT NULL;
CREATE INDEX index_chain_cohort_facts_on_app_id_and_offer_started_at
    ON chain_cohort_facts (app_id, offer_started_at) WHERE offer_started_at IS NOT NULL;

-- One chain's row of `chain_cohort_facts`, computed from its transactions (exactly one row; both NULL when the
-- chain has neither a payment nor an offer). The rules are docs/revenue.md's "Cohorts: trials and retention",
-- the same as SubLedgerReports' CohortSQL (the reports' reference queries over the ledger): a paid transaction
-- is of an auto-renewable product, not a free trial, not Family Shared; refunded = revoked and not `isUpgraded`;
-- a period that was not refunded covers the months since the first payment from its purchase to its end (cut
-- at an upgrade); amounts are Apple's, else the catalog's price point (estimated).
CREATE FUNCTION chain_cohort_facts_of(p_app_id bigint, p_environment text, p_chain text)
RETURNS SETOF chain_cohort_facts LANGUAGE sql STABLE AS $$
SELECT p_app_id, p_environment, p_chain, paid.first_paid_at, paid.paid_mask,
       paid.months, paid.currencies, paid.days, paid.gross, paid.refunded, paid.estimated, paid.unpriced, paid.priced,
       offer.purchase_date, offer.product_id, offer.is_trial, offer.converted, offer.running_until
FROM (
    SELECT min(d.anchor) AT TIME ZONE 'UTC' AS first_paid_at, coalesce(bit_or(d.bits), 0)::bigint AS paid_mask,
           coalesce(array_agg(d.month ORDER BY d.month, d.currency, d.day), '{}')::integer[] AS months,
           coalesce(array_agg(d.currency ORDER BY d.month, d.currency, d.day), '{}')::text[] AS currencies,
           coalesce(array_agg(d.day ORDER BY d.month, d.currency, d.day), '{}')::date[] AS days,
           coalesce(array_agg(d.gross ORDER BY d.month, d.currency, d.day), '{}')::bigint[] AS gross,
           coalesce(array_agg(d.refunded ORDER BY d.month, d.currency, d.day), '{}')::bigint[] AS refunded,
           coalesce(array_agg(d.estimated ORDER BY d.month, d.currency, d.day), '{}')::integer[] AS estimated,
           coalesce(array_agg(d.unpriced ORDER BY d.month, d.currency, d.day), '{}')::integer[] AS unpriced,
           coalesce(array_agg(d.priced ORDER BY d.month, d.currency, d.day), '{}')::integer[] AS priced
    FROM (
        SELECT m.anchor, m.month, m.currency, m.bought::date AS day,
               bit_or(CASE WHEN m.last_month IS NULL OR m.month > least(m.last_month, 61) THEN 0::bigint
                           ELSE (1::bigint << (least(m.last_month, 61) + 1)) - (1::bigint << m.month) END) AS bits,
               coalesce(sum(m.amount), 0)::bigint AS gross,
               coalesce(sum(m.amount) FILTER (WHERE m.refunded), 0)::bigint AS refunded,
               (count(*) FILTER (WHERE m.estimated))::integer AS estimated,
               (count(*) FILTER (WHERE m.amount IS NULL))::integer AS unpriced,
               (count(*) FILTER (WHERE m.amount IS NOT NULL))::integer AS priced
        FROM (
            SELECT a.*,
                   (((extract(year FROM a.bought) - extract(year FROM a.anchor)) * 12 + extract(month FROM a.bought) - extract(month FROM a.anchor))::int
                    - CASE WHEN a.anchor + ((extract(year FROM a.bought) - extract(year FROM a.anchor)) * 12 + extract(month FROM a.bought) - extract(month FROM a.anchor))::int * interval '1 month' > a.bought THEN 1 ELSE 0 END) AS month,
                   CASE WHEN a.refunded OR a.paid_until IS NULL THEN NULL ELSE
                   (((extract(year FROM a.paid_until) - extract(year FROM a.anchor)) * 12 + extract(month FROM a.paid_until) - extract(month FROM a.anchor))::int
                    - CASE WHEN a.anchor + ((extract(year FROM a.paid_until) - extract(year FROM a.anchor)) * 12 + extract(month FROM a.paid_until) - extract(month FROM a.anchor))::int * interval '1 month' >= a.paid_until THEN 1 ELSE 0 END) END AS last_month
            FROM (
                SELECT p.*, min(p.bought) OVER () AS anchor
                FROM (
                    SELECT t.purchase_date AT TIME ZONE 'UTC' AS bought,
                           (CASE WHEN t.revocation_date IS NOT NULL THEN least(t.revocation_date, t.expires_date) ELSE t.expires_date END) AT TIME ZONE 'UTC' AS paid_until,
                           (t.revocation_date IS NOT NULL AND NOT coalesce((t.payload -> 'transaction' ->> 'isUpgraded')::boolean, false)) AS refunded,
                           coalesce(t.price_milliunits, catalog.price_milliunits) AS amount,
                           coalesce(t.currency, catalog.currency) AS currency,
                           (t.price_milliunits IS NULL AND catalog.price_milliunits IS NOT NULL) AS estimated
                    FROM transactions t
                    JOIN products pr ON pr.app_id = t.app_id AND pr.product_id = t.product_id AND pr.product_type = 'auto_renewable'
                    LEFT JOIN LATERAL (
                        SELECT cp.price_milliunits, cp.currency FROM catalog_prices cp
                        WHERE cp.app_id = t.app_id AND cp.product_id = t.product_id AND t.price_milliunits IS NULL
                          AND (cp.storefront = t.storefront OR cp.storefront IS NULL) AND cp.effective_from <= t.purchase_date
                        ORDER BY (cp.storefront IS NULL), cp.effective_from DESC
                        LIMIT 1
                    ) catalog ON true
                    WHERE t.app_id = p_app_id AND t.environment = p_environment AND t.original_transaction_id = p_chain
                      AND NOT (t.is_trial_period OR t.offer_discount_type IS NOT DISTINCT FROM 'FREE_TRIAL')
                      AND t.ownership_type <> 'FAMILY_SHARED'
                ) p
            ) a
        ) m
        GROUP BY m.anchor, m.month, m.currency, m.bought::date
    ) d
) paid
LEFT JOIN LATERAL (
    SELECT f.purchase_date, f.product_id, f.is_trial,
           EXISTS (
               SELECT 1 FROM transactions x
               WHERE x.app_id = p_app_id AND x.environment = p_environment AND x.original_transaction_id = p_chain
                 AND x.purchase_date > f.purchase_date
                 AND NOT (x.is_trial_period OR x.offer_discount_type IS NOT DISTINCT FROM 'FREE_TRIAL')
                 AND x.ownership_type <> 'FAMILY_SHARED'
                 AND NOT (x.revocation_date IS NOT NULL AND NOT coalesce((x.payload -> 'transaction' ->> 'isUpgraded')::boolean, false))
                 AND (f.is_trial OR NOT (NOT (x.is_trial_period OR x.offer_discount_type IS NOT DISTINCT FROM 'FREE_TRIAL')
                                         AND (x.is_in_intro_offer_period OR x.offer_type IS NOT DISTINCT FROM 1)))) AS converted,
           (SELECT max(x.expires_date) FROM transactions x
            WHERE x.app_id = p_app_id AND x.environment = p_environment AND x.original_transaction_id = p_chain
              AND x.purchase_date >= f.purchase_date AND x.revocation_date IS NULL
              AND (x.is_trial_period OR x.offer_discount_type = 'FREE_TRIAL' OR x.is_in_intro_offer_period OR x.offer_type = 1)) AS running_until
    FROM (
        SELECT t.purchase_date, t.product_id,
               (t.is_trial_period OR t.offer_discount_type IS NOT DISTINCT FROM 'FREE_TRIAL') AS is_trial
        FROM transactions t
        WHERE t.app_id = p_app_id AND t.environment = p_environment AND t.original_transaction_id = p_chain
          AND (t.is_trial_period OR t.offer_discount_type = 'FREE_TRIAL' OR t.is_in_intro_offer_period OR t.offer_type = 1)
        ORDER BY t.purchase_date, t.transaction_id
        LIMIT 1
    ) f
    JOIN products pr ON pr.app_id = p_app_id AND pr.product_id = f.product_id AND pr.product_type = 'auto_renewable'
) offer ON true
$$;

-- The rows of the chains that exist when this step runs.
INSERT INTO chain_cohort_facts
SELECT f.* FROM chains c
CROSS JOIN LATERAL chain_cohort_facts_of(c.app_id, c.environment, c.original_transaction_id) f
WHERE f.first_paid_at IS NOT NULL OR f.offer_started_at IS NOT NULL;

-- step 18: ingestion: each apply refreshes cohort facts with plans its connection keeps; notification bodies in lz4

-- The rows of `chain_cohort_facts` of chains `p_chains` of one app and environment, recomputed from their
-- transactions by `chain_cohort_facts_of` (unchanged): written where the chain has a payment or an offer, deleted
-- where it has neither, as step 17's refresh statement does, and left as they are where nothing changed (no new
-- row version, no index entries). `LedgerStore.apply` calls it for the chains it wrote, in its transaction, with
-- the chains locked. PL/pgSQL keeps each statement's plan for the connection's life: the same query inlined into
-- the apply's prepared statement was planned again on every apply (the array of chains makes PostgreSQL prefer a
-- custom plan), and planning it cost several times what running it does.
CREATE FUNCTION chain_cohort_facts_refresh(p_app_id bigint, p_environment text, p_chains text[])
RETURNS void LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
    v_chain text;
    v_fresh chain_cohort_facts;
BEGIN
    FOREACH v_chain IN ARRAY coalesce(p_chains, '{}') LOOP
        SELECT * INTO STRICT v_fresh FROM chain_cohort_facts_of(p_app_id, p_environment, v_chain);
        IF v_fresh.first_paid_at IS NULL AND v_fresh.offer_started_at IS NULL THEN
            DELETE FROM chain_cohort_facts
            WHERE app_id = p_app_id AND environment = p_environment AND original_transaction_id = v_chain;
        ELSE
            INSERT INTO chain_cohort_facts VALUES (v_fresh.*)
            ON CONFLICT (app_id, environment, original_transaction_id) DO UPDATE SET
                first_paid_at = EXCLUDED.first_paid_at, paid_mask = EXCLUDED.paid_mask,
                money_months = EXCLUDED.money_months, money_currencies = EXCLUDED.money_currencies,
                money_days = EXCLUDED.money_days, money_gross = EXCLUDED.money_gross,
                money_refunded = EXCLUDED.money_refunded, money_estimated = EXCLUDED.money_estimated,
                money_unpriced = EXCLUDED.money_unpriced, money_priced = EXCLUDED.money_priced,
                offer_started_at = EXCLUDED.offer_started_at, offer_product_id = EXCLUDED.offer_product_id,
                offer_is_trial = EXCLUDED.offer_is_trial, offer_converted = EXCLUDED.offer_converted,
                offer_running_until = EXCLUDED.offer_running_until
            WHERE (chain_cohort_facts.*) IS DISTINCT FROM (EXCLUDED.*);
        END IF;
    END LOOP;
END
$$;

-- A notification's body is Apple's signed JWS in base64, which pglz (the default) tries to compress and gives up on
-- (it saves less than a quarter): storing each notification paid for the attempt. lz4, where the server has it,
-- compresses the same bodies by about a third, several times faster. New rows only; nothing is rewritten.
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)) THEN
        ALTER TABLE notifications ALTER COLUMN body SET COMPRESSION lz4;
    END IF;
END
$$;

-- step 19: money reports: per-transaction revenue facts and per-chain MRR movement per month, kept by every apply

-- Per transaction of a chain, what the `revenue` and `mrr` reports need (docs/revenue.md, "Speed"), computed
-- from the chain's whole history by `chain_money_facts_of` with the rules of SubLedgerCore's `RevenueSale`,
-- `PaidServiceDays`, `RevenueTransaction.markingUpgrades` and `MonthlyRecurring`: instants in milliseconds since
-- 1970 (as the reports compute), the amount as the `transaction_amounts` view prices it (Apple's, else the
-- catalog's: `estimated`), whether a year of paid service in the chain preceded it (`second_year`: the 15 %
-- commission), the end of the period it served (cut at an upgrade), the prorated credit of an upgrade and its
-- moment, its price normalized to a month and the chain's first paid purchase. What changes with time or with
-- small tables (the Small Business Program, tax rates, exchange rates) is applied by the reports when they run.
-- Written by `LedgerStore.apply` for the chains it changes, in its transaction (`ChainMoneyFactsRows`);
-- recomputed for a whole app when catalog prices change.
CREATE TABLE chain_money_facts (
    app_id                  bigint NOT NULL,
    environment             text NOT NULL,
    original_transaction_id text NOT NULL,
    transaction_id          text NOT NULL,
    product_id              text NOT NULL,
    purchase_ms             bigint NOT NULL,
    expires_ms              bigint,
    served_until_ms         bigint,
    refund_ms               bigint,
    credit_ms               bigint,
    credit_milli            bigint,
    amount_milli            bigint,
    currency                text,
    storefront              text,
    estimated               boolean NOT NULL,
    second_year             boolean NOT NULL,
    monthly_milli           bigint,
    first_paid_ms           bigint,
    PRIMARY KEY (app_id, environment, original_transaction_id, transaction_id)
);
COMMENT ON TABLE chain_money_facts IS 'citus: distributed by original_transaction_id';
-- revenue: the sales of a range, index-only.
CREATE INDEX index_chain_money_facts_on_app_id_and_purchase_ms
    ON chain_money_facts (app_id, purchase_ms)
    INCLUDE (environment, product_id, storefront, currency, amount_milli, second_year, estimated);
-- revenue: refunds and upgrade credits of a range (few).
CREATE INDEX index_chain_money_facts_on_app_id_and_refund_ms
    ON chain_money_facts (app_id, refund_ms) WHERE refund_ms IS NOT NULL AND amount_milli > 0;
CREATE INDEX index_chain_money_facts_on_app_id_and_credit_ms
    ON chain_money_facts (app_id, credit_ms) WHERE credit_ms IS NOT NULL;
-- mrr at an instant that is not a month end (the current month): the periods running past an instant.
CREATE INDEX index_chain_money_facts_on_app_id_and_served_until_ms
    ON chain_money_facts (app_id, served_until_ms)
    INCLUDE (environment, purchase_ms, refund_ms, monthly_milli, currency, estimated, first_paid_ms)
    WHERE served_until_ms IS NOT NULL;

-- One chain's rows of `chain_money_facts`, from the `transaction_amounts` view (the reference the reports read
-- before this step), in purchase order (purchase instant, then transaction id).
CREATE FUNCTION chain_money_facts_of(p_app_id bigint, p_environment text, p_chain text)
RETURNS SETOF chain_money_facts LANGUAGE sql STABLE AS $$
SELECT p_app_id, p_environment, p_chain, h.transaction_id, h.product_id, h.purchase_ms, h.expires_ms, h.served_until_ms,
       h.refund_ms,
       CASE WHEN h.credits THEN h.upgrade_ms END,
       CASE WHEN h.credits THEN
           (div(h.amount::numeric * (h.expires_ms - h.upgrade_ms), h.expires_ms - h.purchase_ms)
            + CASE WHEN mod(h.amount::numeric * (h.expires_ms - h.upgrade_ms), h.expires_ms - h.purchase_ms) * 2
                        >= h.expires_ms - h.purchase_ms THEN 1 ELSE 0 END)::bigint END,
       h.amount, h.currency, h.storefront, h.estimated,
       coalesce(sum(h.paid_ms) OVER (PARTITION BY h.segment ORDER BY h.purchase_ms, h.transaction_id COLLATE "C"
                                     ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) >= 365::bigint * 86400000,
       CASE WHEN h.amount IS NULL OR h.expires_ms IS NULL THEN NULL
            WHEN (h.expires_ms - h.purchase_ms) / 86400000 BETWEEN 6 AND 8 THEN (h.amount * 52 + 6) / 12
            ELSE (h.amount + greatest(1, (h.expires_ms - h.purchase_ms + 1314873000) / 2629746000) / 2)
                 / greatest(1, (h.expires_ms - h.purchase_ms + 1314873000) / 2629746000) END,
       h.first_paid_ms
FROM (
    SELECT g.*, count(*) FILTER (WHERE g.resets) OVER (ORDER BY g.purchase_ms, g.transaction_id COLLATE "C") AS segment
    FROM (
        SELECT s.*,
               (s.counts AND s.last_paid_end IS NOT NULL AND s.purchase_ms - s.last_paid_end > 60::bigint * 86400000) AS resets
        FROM (
            SELECT u.*,
                   CASE WHEN u.counts AND u.served_until_ms IS NOT NULL THEN greatest(0, u.served_until_ms - u.purchase_ms) END AS paid_ms,
                   max(CASE WHEN u.counts THEN u.served_until_ms END) OVER (
                       ORDER BY u.purchase_ms, u.transaction_id COLLATE "C" ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS last_paid_end,
                   (u.amount > 0 AND u.refund_ms IS NULL AND u.upgrade_ms IS NOT NULL) AS credits
            FROM (
                SELECT t.*,
                       CASE WHEN t.expires_ms IS NULL THEN NULL WHEN t.upgrade_ms IS NOT NULL THEN t.upgrade_ms ELSE t.expires_ms END AS served_until_ms,
                       (coalesce(t.amount, 0) > 0 AND t.refund_ms IS NULL) AS counts
                FROM (
                    SELECT r.*,
                           CASE WHEN r.refund_ms IS NULL AND r.expires_ms IS NOT NULL AND r.next_ms > r.purchase_ms
                                     AND r.next_ms < r.expires_ms THEN r.next_ms END AS upgrade_ms,
                           min(r.purchase_ms) FILTER (WHERE r.amount > 0) OVER () AS first_paid_ms
                    FROM (
                        SELECT a.transaction_id, a.product_id,
                               (extract(epoch FROM a.purchase_date) * 1000)::bigint AS purchase_ms,
                               (extract(epoch FROM a.expires_date) * 1000)::bigint AS expires_ms,
                               (extract(epoch FROM a.revocation_date) * 1000)::bigint AS refund_ms,
                               a.amount_milliunits AS amount, a.currency, a.storefront, coalesce(a.estimated, false) AS estimated,
                               (extract(epoch FROM lead(a.purchase_date) OVER (
                                   ORDER BY a.purchase_date, a.transaction_id COLLATE "C")) * 1000)::bigint AS next_ms
                        FROM transaction_amounts a
                        WHERE a.app_id = p_app_id AND a.environment = p_environment AND a.original_transaction_id = p_chain
                    ) r
                ) t
            ) u
        ) s
    ) g
) h
$$;

-- Per chain, month (UTC; MRR is measured at the month's last millisecond) and currency, how the chain's MRR
-- moved since the previous month's end, by `MRRSeries`' rules: the change of its MRR, of the subscribers it
-- counts as (1 while it pays more than 0), of the estimated subscribers (priced from the catalog), and the
-- movement split into new, expansion, contraction, churned and reactivation. Only months where something
-- changed have a row, so a report sums the rows up to its months' ends: MRR at a month end is the sum of the
-- changes before it. Written with `chain_money_facts`, from its rows (`chain_mrr_moves_from`).
CREATE TABLE chain_mrr_moves (
    app_id                  bigint NOT NULL,
    environment             text NOT NULL,
    original_transaction_id text NOT NULL,
    month                   date NOT NULL,
    currency                text NOT NULL,
    mrr_delta               bigint NOT NULL,
    subscribers_delta       integer NOT NULL,
    estimated_delta         integer NOT NULL,
    new_milli               bigint NOT NULL,
    expansion_milli         bigint NOT NULL,
    contraction_milli       bigint NOT NULL,
    churned_milli           bigint NOT NULL,
    reactivation_milli      bigint NOT NULL,
    PRIMARY KEY (app_id, environment, original_transaction_id, month, currency)
);
COMMENT ON TABLE chain_mrr_moves IS 'citus: distributed by original_transaction_id';
CREATE INDEX index_chain_mrr_moves_on_app_id_and_month
    ON chain_mrr_moves (app_id, month)
    INCLUDE (environment, currency, mrr_delta, subscribers_delta, estimated_delta, new_milli, expansion_milli,
             contraction_milli, churned_milli, reactivation_milli);

-- One subscriber's move between two instants (MRRSeries.compute and MRRMovement.record): its MRR before
-- (`b_…`, NULL: none) and after (`n_…`), whether it paid before the earlier instant. One row per currency touched.
CREATE FUNCTION mrr_move_rows(b_amount bigint, b_currency text, b_estimated boolean,
                              n_amount bigint, n_currency text, n_estimated boolean, paid_before boolean)
RETURNS TABLE (currency text, mrr_delta bigint, subscribers_delta integer, estimated_delta integer, new_milli bigint,
               expansion_milli bigint, contraction_milli bigint, churned_milli bigint, reactivation_milli bigint)
LANGUAGE sql IMMUTABLE AS $$
SELECT b_currency, n_amount - b_amount, 0, n_estimated::integer - b_estimated::integer, 0::bigint,
       greatest(n_amount - b_amount, 0), CASE WHEN n_amount > b_amount THEN 0 ELSE b_amount - n_amount END, 0::bigint, 0::bigint
WHERE b_amount IS NOT NULL AND n_amount IS NOT NULL AND b_currency = n_currency
UNION ALL
SELECT b_currency, -b_amount, -1, -b_estimated::integer, 0, 0, 0, b_amount, 0
WHERE b_amount IS NOT NULL AND NOT (n_amount IS NOT NULL AND b_currency = n_currency)
UNION ALL
SELECT n_currency, n_amount, 1, n_estimated::integer,
       CASE WHEN paid_before OR b_amount IS NOT NULL THEN 0 ELSE n_amount END, 0, 0, 0,
       CASE WHEN paid_before OR b_amount IS NOT NULL THEN n_amount ELSE 0 END
WHERE n_amount IS NOT NULL AND NOT (b_amount IS NOT NULL AND b_currency = n_currency)
$$;

-- A chain's `chain_mrr_moves` rows from its `chain_money_facts` rows: the transaction in force at each month's
-- last millisecond (the latest purchased by then whose served period runs past it and that is not refunded by
-- then), its monthly amount when more than 0 and priced, and the move from the previous month's end.
CREATE FUNCTION chain_mrr_moves_from(facts chain_money_facts[])
RETURNS SETOF chain_mrr_moves LANGUAGE sql IMMUTABLE AS $$
WITH f AS (SELECT * FROM unnest(facts)),
covered AS (
    SELECT m.month, f.purchase_ms, f.transaction_id, f.monthly_milli, f.currency, f.estimated
    FROM f
    CROSS JOIN LATERAL generate_series(
        date_trunc('month', to_timestamp(f.purchase_ms / 1000.0) AT TIME ZONE 'UTC'),
        date_trunc('month', to_timestamp(least(f.served_until_ms, coalesce(f.refund_ms, f.served_until_ms)) / 1000.0) AT TIME ZONE 'UTC'),
        interval '1 month') AS m(month)
    WHERE f.served_until_ms IS NOT NULL
      AND (extract(epoch FROM m.month + interval '1 month') * 1000)::bigint - 1 >= f.purchase_ms
      AND (extract(epoch FROM m.month + interval '1 month') * 1000)::bigint - 1
          < least(f.served_until_ms, coalesce(f.refund_ms, f.served_until_ms))
),
picked AS (
    SELECT DISTINCT ON (c.month) c.month, c.monthly_milli, c.currency, c.estimated
    FROM covered c ORDER BY c.month, c.purchase_ms DESC, c.transaction_id COLLATE "C" DESC
),
paying AS (SELECT * FROM picked WHERE monthly_milli > 0 AND currency IS NOT NULL),
pairs AS (
    SELECT coalesce(n.month, b.month + interval '1 month') AS month,
           b.monthly_milli AS b_amount, b.currency AS b_currency, b.estimated AS b_estimated,
           n.monthly_milli AS n_amount, n.currency AS n_currency, n.estimated AS n_estimated
    FROM paying n FULL JOIN paying b ON b.month + interval '1 month' = n.month
    WHERE (b.monthly_milli, b.currency, b.estimated) IS DISTINCT FROM (n.monthly_milli, n.currency, n.estimated)
)
SELECT (facts[1]).app_id, (facts[1]).environment, (facts[1]).original_transaction_id, p.month::date, m.*
FROM pairs p
CROSS JOIN LATERAL mrr_move_rows(
    p.b_amount, p.b_currency, p.b_estimated, p.n_amount, p.n_currency, p.n_estimated,
    coalesce((facts[1]).first_paid_ms < (extract(epoch FROM p.month) * 1000)::bigint - 1, false)) m
WHERE m.mrr_delta <> 0 OR m.subscribers_delta <> 0 OR m.estimated_delta <> 0
$$;

-- Per chain, each instant at which its MRR changes (a transaction starts or stops being the one in force, by the
-- rule above) and the change, per currency: MRR at any instant is the sum of the steps up to it. What `mrr` reads
-- for a month measured before its end (the current month, at now): only the chains with a step since the
-- previous month's end, not every transaction in force. `first_paid_ms`: the chain's first paid purchase.
CREATE TABLE chain_mrr_steps (
    app_id                  bigint NOT NULL,
    environment             text NOT NULL,
    original_transaction_id text NOT NULL,
    at_ms                   bigint NOT NULL,
    currency                text NOT NULL,
    mrr_delta               bigint NOT NULL,
    subscribers_delta       integer NOT NULL,
    estimated_delta         integer NOT NULL,
    first_paid_ms           bigint,
    PRIMARY KEY (app_id, environment, original_transaction_id, at_ms, currency)
);
COMMENT ON TABLE chain_mrr_steps IS 'citus: distributed by original_transaction_id';
CREATE INDEX index_chain_mrr_steps_on_app_id_and_at_ms ON chain_mrr_steps (app_id, at_ms) INCLUDE (environment);

-- A chain's `chain_mrr_steps` rows from its `chain_money_facts` rows: its value (monthly amount when more than 0
-- and priced, currency, estimated) at every instant a transaction starts or ends, and the change from the value
-- before.
CREATE FUNCTION chain_mrr_steps_from(facts chain_money_facts[])
RETURNS SETOF chain_mrr_steps LANGUAGE sql IMMUTABLE AS $$
WITH f AS (SELECT * FROM unnest(facts) WHERE served_until_ms IS NOT NULL),
bounds AS (
    SELECT DISTINCT v.at FROM f
    CROSS JOIN LATERAL (VALUES (f.purchase_ms), (least(f.served_until_ms, coalesce(f.refund_ms, f.served_until_ms)))) AS v(at)
),
valued AS (
    SELECT b.at, CASE WHEN p.monthly_milli > 0 AND p.currency IS NOT NULL THEN p.monthly_milli END AS amount,
           CASE WHEN p.monthly_milli > 0 AND p.currency IS NOT NULL THEN p.currency END AS currency,
           CASE WHEN p.monthly_milli > 0 AND p.currency IS NOT NULL THEN p.estimated END AS estimated
    FROM bounds b
    LEFT JOIN LATERAL (
        SELECT f.monthly_milli, f.currency, f.estimated FROM f
        WHERE f.purchase_ms <= b.at AND f.served_until_ms > b.at AND (f.refund_ms IS NULL OR f.refund_ms > b.at)
        ORDER BY f.purchase_ms DESC, f.transaction_id COLLATE "C" DESC
        LIMIT 1
    ) p ON true
),
changes AS (
    SELECT v.at, v.amount AS n_amount, v.currency AS n_currency, v.estimated AS n_estimated,
           lag(v.amount) OVER w AS b_amount, lag(v.currency) OVER w AS b_currency, lag(v.estimated) OVER w AS b_estimated
    FROM valued v WINDOW w AS (ORDER BY v.at)
)
SELECT (facts[1]).app_id, (facts[1]).environment, (facts[1]).original_transaction_id, c.at, d.currency,
       d.mrr_delta, d.subscribers_delta, d.estimated_delta, (facts[1]).first_paid_ms
FROM changes c
CROSS JOIN LATERAL (
    SELECT c.b_currency, c.n_amount - c.b_amount, 0, c.n_estimated::integer - c.b_estimated::integer
    WHERE c.b_amount IS NOT NULL AND c.n_amount IS NOT NULL AND c.b_currency = c.n_currency
    UNION ALL
    SELECT c.b_currency, -c.b_amount, -1, -c.b_estimated::integer
    WHERE c.b_amount IS NOT NULL AND NOT (c.n_amount IS NOT NULL AND c.b_currency = c.n_currency)
    UNION ALL
    SELECT c.n_currency, c.n_amount, 1, c.n_estimated::integer
    WHERE c.n_amount IS NOT NULL AND NOT (c.b_amount IS NOT NULL AND c.b_currency = c.n_currency)
) AS d(currency, mrr_delta, subscribers_delta, estimated_delta)
WHERE (c.b_amount, c.b_currency, c.b_estimated) IS DISTINCT FROM (c.n_amount, c.n_currency, c.n_estimated)
$$;

-- The rows of the chains that exist when this step runs.
INSERT INTO chain_money_facts
SELECT f.* FROM chains c
CROSS JOIN LATERAL chain_money_facts_of(c.app_id, c.environment, c.original_transaction_id) f;

INSERT INTO chain_mrr_moves
SELECT m.* FROM (
    SELECT array_agg(f ORDER BY f.transaction_id) AS facts FROM chain_money_facts f
    GROUP BY f.app_id, f.environment, f.original_transaction_id
) c
CROSS JOIN LATERAL chain_mrr_moves_from(c.facts) m;

INSERT INTO chain_mrr_steps
SELECT m.* FROM (
    SELECT array_agg(f ORDER BY f.transaction_id) AS facts FROM chain_money_facts f
    GROUP BY f.app_id, f.environment, f.original_transaction_id
) c
CROSS JOIN LATERAL chain_mrr_steps_from(c.facts) m;

-- step 20: operational reports: per-chain time spans (granting, in force, recorded state) and churn's day counts, kept by every apply

-- Per chain, the spans of time the operational reports count at an instant (docs/reports.md, "Report spans"). Each
-- row is a half-open span [starts_at, ends_at) ('-infinity' and 'infinity' are allowed) of one kind:
-- - 'granting' (`active`): the chain is owned and its effective state (`EffectiveState`, on the chain's columns as
--   stored now) is `active` or `grace_period`; `detail` is the offer of its latest transaction purchased by then
--   ('trial', 'intro' or 'paid', as the report splits it); `product_id` is the chain's.
-- - 'in_force' (`active-over-time`): a level of the chain's subscription transactions in force (purchase date to
--   the earlier of expiry and revocation): the spans of a chain add up, at every instant, to how many of its
--   transactions are in force then (touching transactions make one span).
-- - 'recorded' (`summary --at` in the past): the chain's last `chain_state_changes` row by then; `detail` is its
--   state, `product_id` its product.
-- Written by `LedgerStore.apply` for the chains it changes, in its transaction, from `chain_report_spans_of`.
CREATE TABLE chain_report_spans (
    app_id                  bigint NOT NULL,
    environment             text NOT NULL,
    original_transaction_id text NOT NULL,
    kind                    text NOT NULL,
    seq                     integer NOT NULL,
    starts_at               timestamptz NOT NULL,
    ends_at                 timestamptz NOT NULL,
    product_id              text,
    detail                  text,
    PRIMARY KEY (app_id, environment, original_transaction_id, kind, seq)
);
COMMENT ON TABLE chain_report_spans IS 'citus: distributed by original_transaction_id';
-- Each report reads the spans of its kind that end after its (first) instant, index-only.
CREATE INDEX index_chain_report_spans_granting
    ON chain_report_spans (app_id, ends_at) INCLUDE (starts_at, environment, product_id, detail)
    WHERE kind = 'granting';
CREATE INDEX index_chain_report_spans_in_force
    ON chain_report_spans (app_id, ends_at) INCLUDE (starts_at, environment)
    WHERE kind = 'in_force';
CREATE INDEX index_chain_report_spans_recorded
    ON chain_report_spans (app_id, ends_at) INCLUDE (starts_at, environment, product_id, detail)
    WHERE kind = 'recorded';

-- One chain's rows of `chain_report_spans`, from its `chains` row, transactions and state changes. The rules are
-- those of SubLedgerReports' reference queries over the ledger (ReportStore+Active, ReportStore+Summary):
-- granting until the instant the effective state leaves active/grace (EffectiveState), split where the latest
-- transaction by (purchase_date, transaction_id) changes offer; in force by the level sets of the transactions'
-- [purchase_date, least(expires_date, revocation_date)); recorded from each change to the next (by changed_at,
-- change_id), empty spans left out.
CREATE FUNCTION chain_report_spans_of(p_app_id bigint, p_environment text, p_chain text)
RETURNS SETOF chain_report_spans LANGUAGE sql STABLE AS $$
WITH chain AS (
    SELECT c.product_id,
           CASE WHEN c.state = 'active' AND c.product_type = 'auto_renewable' THEN
                     CASE WHEN c.expires_at IS NULL THEN 'infinity'::timestamptz
                          WHEN c.in_billing_retry AND c.grace_expires_at > c.expires_at THEN c.grace_expires_at
                          ELSE c.expires_at END
                WHEN c.state = 'active' AND c.product_type = 'non_renewing' THEN coalesce(c.expires_at, 'infinity')
                WHEN c.state = 'active' THEN 'infinity'::timestamptz
                ELSE coalesce(c.grace_expires_at, 'infinity') END AS granting_until
    FROM chains c
    WHERE c.app_id = p_app_id AND c.environment = p_environment AND c.original_transaction_id = p_chain
      AND c.owner_account_id IS NOT NULL AND c.state IN ('active', 'grace_period')
),
bought AS (
    SELECT t.purchase_date AS starts_at,
           coalesce(lead(t.purchase_date) OVER (ORDER BY t.purchase_date, t.transaction_id), 'infinity') AS ends_at,
           CASE WHEN t.is_trial_period THEN 'trial' WHEN t.is_in_intro_offer_period THEN 'intro' ELSE 'paid' END AS offer
    FROM transactions t
    WHERE t.app_id = p_app_id AND t.environment = p_environment AND t.original_transaction_id = p_chain
),
pieces AS (
    SELECT '-infinity'::timestamptz AS starts_at, coalesce(min(b.starts_at), 'infinity') AS ends_at, 'paid' AS offer
    FROM bought b
    UNION ALL
    SELECT b.starts_at, b.ends_at, b.offer FROM bought b WHERE b.ends_at > b.starts_at
),
granting_pieces AS (
    SELECT p.starts_at, least(p.ends_at, ch.granting_until) AS ends_at, p.offer,
           ch.product_id
    FROM pieces p CROSS JOIN chain ch
    WHERE p.starts_at < least(p.ends_at, ch.granting_until)
),
granting_runs AS (
    SELECT g.*, count(*) FILTER (WHERE g.changed) OVER (ORDER BY g.starts_at) AS run
    FROM (SELECT gp.*, gp.offer IS DISTINCT FROM lag(gp.offer) OVER (ORDER BY gp.starts_at) AS changed
          FROM granting_pieces gp) g
),
granting AS (
    SELECT min(r.starts_at) AS starts_at, max(r.ends_at) AS ends_at, min(r.product_id) AS product_id, min(r.offer) AS offer
    FROM granting_runs r GROUP BY r.run
),
edges AS (
    SELECT e.at, sum(e.delta)::integer AS delta
    FROM transactions t
    CROSS JOIN LATERAL (VALUES (t.purchase_date, 1),
                               (least(t.expires_date, coalesce(t.revocation_date, 'infinity')), -1)) AS e(at, delta)
    WHERE t.app_id = p_app_id AND t.environment = p_environment AND t.original_transaction_id = p_chain
      AND t.expires_date IS NOT NULL
      AND least(t.expires_date, coalesce(t.revocation_date, 'infinity')) > t.purchase_date
    GROUP BY e.at
    HAVING sum(e.delta) <> 0
),
levels AS (
    SELECT e.at, (sum(e.delta) OVER (ORDER BY e.at))::integer AS level,
           (sum(e.delta) OVER (ORDER BY e.at))::integer - e.delta AS previous
    FROM edges e
),
level_edges AS (
    SELECT k.k, l.at, l.level > l.previous AS up
    FROM levels l CROSS JOIN LATERAL generate_series(least(l.level, l.previous) + 1, greatest(l.level, l.previous)) AS k(k)
),
in_force AS (
    SELECT s.at AS starts_at, s.next_at AS ends_at
    FROM (SELECT le.*, lead(le.at) OVER (PARTITION BY le.k ORDER BY le.at) AS next_at FROM level_edges le) s
    WHERE s.up
),
recorded AS (
    SELECT r.starts_at, r.ends_at, r.product_id, r.state
    FROM (SELECT x.changed_at AS starts_at,
                 coalesce(lead(x.changed_at) OVER (ORDER BY x.changed_at, x.change_id), 'infinity') AS ends_at,
                 x.product_id, x.state
          FROM chain_state_changes x
          WHERE x.app_id = p_app_id AND x.environment = p_environment AND x.original_transaction_id = p_chain) r
    WHERE r.ends_at > r.starts_at
)
SELECT p_app_id, p_environment, p_chain, 'granting', (row_number() OVER (ORDER BY g.starts_at))::integer,
       g.starts_at, g.ends_at, g.product_id, g.offer
FROM granting g
UNION ALL
SELECT p_app_id, p_environment, p_chain, 'in_force', (row_number() OVER (ORDER BY f.starts_at, f.ends_at))::integer,
       f.starts_at, f.ends_at, NULL, NULL
FROM in_force f
UNION ALL
SELECT p_app_id, p_environment, p_chain, 'recorded', (row_number() OVER (ORDER BY r.starts_at))::integer,
       r.starts_at, r.ends_at, r.product_id, r.state
FROM recorded r
$$;

-- The rows of the chains that exist when this step runs.
INSERT INTO chain_report_spans
SELECT f.* FROM chains c
CROSS JOIN LATERAL chain_report_spans_of(c.app_id, c.environment, c.original_transaction_id) f;

-- `churn`: recoveries (a change from billing retry or grace back to active) over a time range, index-only, instead of
-- every change to `active` (about one per chain).
CREATE INDEX index_chain_state_changes_on_recoveries
    ON chain_state_changes (app_id, changed_at) INCLUDE (environment)
    WHERE state = 'active' AND previous_state IN ('billing_retry', 'grace_period');

-- `churn`: the ledger entries it counts (`grant` and `extend`, and `revoke` with reason `refund`), counted per app,
-- environment, kind, product (empty for `extend`, which the report does not filter by product) and UTC day (the
-- report's day number, `floor(epoch / 86400)`), in 16 shards by chain so that concurrent applies rarely wait on
-- one another's row. Exact under concurrent applies: each apply adds what it counted to the rows (ON CONFLICT ...
-- entries + n) in key order. `churn` sums the whole days of its range from here and reads the partial days at its
-- edges from `ledger_entries`. Per chain, `chain_entries_counted` holds the greatest `entry_id` counted so far (a
-- chain's entries are written under its lock, so later ones have greater ids); `LedgerStore.apply` counts the
-- chain's entries after it, after writing them, in its transaction.
CREATE TABLE ledger_entry_day_counts (
    app_id                  bigint NOT NULL,
    kind                    text NOT NULL,
    day                     integer NOT NULL,
    environment             text NOT NULL,
    product_id              text NOT NULL,
    shard                   smallint NOT NULL,
    entries                 bigint NOT NULL,
    PRIMARY KEY (app_id, kind, day, environment, product_id, shard)
);
COMMENT ON TABLE ledger_entry_day_counts IS 'citus: coordinator';
CREATE TABLE chain_entries_counted (
    app_id                  bigint NOT NULL,
    environment             text NOT NULL,
    original_transaction_id text NOT NULL,
    counted_through         bigint NOT NULL,
    PRIMARY KEY (app_id, environment, original_transaction_id)
);
COMMENT ON TABLE chain_entries_counted IS 'citus: distributed by original_transaction_id';

-- The entries and chains that exist when this step runs.
INSERT INTO chain_entries_counted
SELECT app_id, environment, original_transaction_id, max(entry_id) FROM ledger_entries GROUP BY 1, 2, 3;
INSERT INTO ledger_entry_day_counts
SELECT app_id, kind, floor(date_part('epoch', effective_at) / 86400)::integer, environment,
       CASE WHEN kind = 'extend' THEN '' ELSE product_id END, (hashtext(original_transaction_id) & 15)::smallint, count(*)
FROM ledger_entries
WHERE kind IN ('grant', 'extend') OR (kind = 'revoke' AND reason = 'refund')
GROUP BY 1, 2, 3, 4, 5, 6;

-- step 21: retention: per-cohort totals of chains per paid-month mask and of money per month, currency and day, kept by every apply

-- What `retention` reads for the cohorts whose whole UTC month lies in its range (docs/reports.md, "Cohort facts"),
-- summed from `chain_cohort_facts` so that the report reads a few rows per cohort instead of unnesting every
-- member's money: the chains per cohort (the UTC month of the first payment) and full paid-month mask, and their
-- money per month since the first payment, currency ('' for transactions without a known amount: `money_currencies`
-- holds NULL there) and purchase day. Only chains with a payment count. Each total is kept in 16 shards by chain so
-- that concurrent applies rarely wait on one another's row (a day's renewals of one cohort all add to one key). Exact
-- under concurrent applies: `chain_cohort_facts_refresh` adds the difference between each chain's old and new row
-- (ON CONFLICT ... x + EXCLUDED.x) in key order; the whole-app recompute of `catalog apply` sets the app's totals
-- from its recomputed facts. A total that returns to zero keeps its row (the report skips empty ones).
CREATE TABLE cohort_chain_totals (
    app_id                  bigint NOT NULL,
    cohort                  date NOT NULL,
    environment             text NOT NULL,
    paid_mask               bigint NOT NULL,
    shard                   smallint NOT NULL,
    chains                  bigint NOT NULL,
    PRIMARY KEY (app_id, cohort, environment, paid_mask, shard)
);
COMMENT ON TABLE cohort_chain_totals IS 'citus: coordinator';
CREATE TABLE cohort_money_totals (
    app_id                  bigint NOT NULL,
    cohort                  date NOT NULL,
    environment             text NOT NULL,
    month                   integer NOT NULL,
    currency                text NOT NULL,
    day                     date NOT NULL,
    shard                   smallint NOT NULL,
    gross                   bigint NOT NULL,
    refunded                bigint NOT NULL,
    estimated               bigint NOT NULL,
    unpriced                bigint NOT NULL,
    priced                  bigint NOT NULL,
    PRIMARY KEY (app_id, cohort, environment, month, currency, day, shard)
);
COMMENT ON TABLE cohort_money_totals IS 'citus: coordinator';

-- Step 18's refresh, which also keeps the totals above: the rows of `chain_cohort_facts` of chains `p_chains` of one
-- app and environment recomputed by `chain_cohort_facts_of` (written, deleted or left as step 18 does), and the
-- difference of the paid part of each chain whose paid part changed added to the totals: all the call's chains at
-- once, in key order, in two statements (none when no paid part changed: an apply that only moves an offer writes
-- none). The plans of both are kept for the connection's life, like the rest of the function's.
CREATE OR REPLACE FUNCTION chain_cohort_facts_refresh(p_app_id bigint, p_environment text, p_chains text[])
RETURNS void LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
    v_chain text;
    v_fresh chain_cohort_facts;
    v_old chain_cohort_facts;
    v_olds chain_cohort_facts[] := '{}';
    v_news chain_cohort_facts[] := '{}';
BEGIN
    FOREACH v_chain IN ARRAY coalesce(p_chains, '{}') LOOP
        SELECT * INTO STRICT v_fresh FROM chain_cohort_facts_of(p_app_id, p_environment, v_chain);
        v_old := NULL;
        SELECT * INTO v_old FROM chain_cohort_facts
        WHERE app_id = p_app_id AND environment = p_environment AND original_transaction_id = v_chain;
        IF v_fresh.first_paid_at IS NULL AND v_fresh.offer_started_at IS NULL THEN
            IF v_old.original_transaction_id IS NOT NULL THEN
                DELETE FROM chain_cohort_facts
                WHERE app_id = p_app_id AND environment = p_environment AND original_transaction_id = v_chain;
            END IF;
        ELSIF (v_old.*) IS DISTINCT FROM (v_fresh.*) THEN
            INSERT INTO chain_cohort_facts VALUES (v_fresh.*)
            ON CONFLICT (app_id, environment, original_transaction_id) DO UPDATE SET
                first_paid_at = EXCLUDED.first_paid_at, paid_mask = EXCLUDED.paid_mask,
                money_months = EXCLUDED.money_months, money_currencies = EXCLUDED.money_currencies,
                money_days = EXCLUDED.money_days, money_gross = EXCLUDED.money_gross,
                money_refunded = EXCLUDED.money_refunded, money_estimated = EXCLUDED.money_estimated,
                money_unpriced = EXCLUDED.money_unpriced, money_priced = EXCLUDED.money_priced,
                offer_started_at = EXCLUDED.offer_started_at, offer_product_id = EXCLUDED.offer_product_id,
                offer_is_trial = EXCLUDED.offer_is_trial, offer_converted = EXCLUDED.offer_converted,
                offer_running_until = EXCLUDED.offer_running_until;
        END IF;
        IF (v_old.first_paid_at, v_old.paid_mask, v_old.money_months, v_old.money_currencies, v_old.money_days,
            v_old.money_gross, v_old.money_refunded, v_old.money_estimated, v_old.money_unpriced, v_old.money_priced)
           IS DISTINCT FROM
           (v_fresh.first_paid_at, v_fresh.paid_mask, v_fresh.money_months, v_fresh.money_currencies, v_fresh.money_days,
            v_fresh.money_gross, v_fresh.money_refunded, v_fresh.money_estimated, v_fresh.money_unpriced, v_fresh.money_priced)
        THEN
            IF v_old.first_paid_at IS NOT NULL THEN
                v_olds := v_olds || v_old;
            END IF;
            IF v_fresh.first_paid_at IS NOT NULL THEN
                v_news := v_news || v_fresh;
            END IF;
        END IF;
    END LOOP;
    IF cardinality(v_olds) = 0 AND cardinality(v_news) = 0 THEN
        RETURN;
    END IF;
    -- The old rows count -1 and the new ones +1: what did not change cancels out before anything is written.
    INSERT INTO cohort_chain_totals AS t (app_id, cohort, environment, paid_mask, shard, chains)
    SELECT p_app_id, d.cohort, p_environment, d.paid_mask, d.shard, sum(d.n)
    FROM (
        SELECT date_trunc('month', s.first_paid_at AT TIME ZONE 'UTC')::date AS cohort, s.paid_mask,
               (hashtext(s.original_transaction_id) & 15)::smallint AS shard, s.n
        FROM (SELECT o.*, -1 AS n FROM unnest(v_olds) o UNION ALL SELECT o.*, 1 FROM unnest(v_news) o) s
    ) d
    GROUP BY d.cohort, d.paid_mask, d.shard
    HAVING sum(d.n) <> 0
    ORDER BY d.cohort, d.paid_mask, d.shard
    ON CONFLICT (app_id, cohort, environment, paid_mask, shard) DO UPDATE SET chains = t.chains + EXCLUDED.chains;
    INSERT INTO cohort_money_totals AS t
        (app_id, cohort, environment, month, currency, day, shard, gross, refunded, estimated, unpriced, priced)
    SELECT p_app_id, d.cohort, p_environment, d.month, d.currency, d.day, d.shard,
           sum(d.gross), sum(d.refunded), sum(d.estimated), sum(d.unpriced), sum(d.priced)
    FROM (
        SELECT date_trunc('month', s.first_paid_at AT TIME ZONE 'UTC')::date AS cohort, x.month,
               coalesce(x.currency, '') AS currency, x.day, (hashtext(s.original_transaction_id) & 3)::smallint AS shard,
               s.n * x.gross AS gross, s.n * x.refunded AS refunded, s.n * x.estimated AS estimated,
               s.n * x.unpriced AS unpriced, s.n * x.priced AS priced
        FROM (SELECT o.*, -1 AS n FROM unnest(v_olds) o UNION ALL SELECT o.*, 1 FROM unnest(v_news) o) s,
             LATERAL unnest(s.money_months, s.money_currencies, s.money_days, s.money_gross, s.money_refunded,
                            s.money_estimated, s.money_unpriced, s.money_priced)
                 AS x(month, currency, day, gross, refunded, estimated, unpriced, priced)
    ) d
    GROUP BY d.cohort, d.month, d.currency, d.day, d.shard
    HAVING sum(d.gross) <> 0 OR sum(d.refunded) <> 0 OR sum(d.estimated) <> 0 OR sum(d.unpriced) <> 0
        OR sum(d.priced) <> 0
    ORDER BY d.cohort, d.month, d.currency, d.day, d.shard
    ON CONFLICT (app_id, cohort, environment, month, currency, day, shard) DO UPDATE SET
        gross = t.gross + EXCLUDED.gross, refunded = t.refunded + EXCLUDED.refunded,
        estimated = t.estimated + EXCLUDED.estimated, unpriced = t.unpriced + EXCLUDED.unpriced,
        priced = t.priced + EXCLUDED.priced;
END
$$;

-- The totals of the facts that exist when this step runs.
INSERT INTO cohort_chain_totals (app_id, cohort, environment, paid_mask, shard, chains)
SELECT app_id, date_trunc('month', first_paid_at AT TIME ZONE 'UTC')::date, environment, paid_mask,
       (hashtext(original_transaction_id) & 15)::smallint, count(*)
FROM chain_cohort_facts
WHERE first_paid_at IS NOT NULL
GROUP BY 1, 2, 3, 4, 5;
INSERT INTO cohort_money_totals
    (app_id, cohort, environment, month, currency, day, shard, gross, refunded, estimated, unpriced, priced)
SELECT f.app_id, date_trunc('month', f.first_paid_at AT TIME ZONE 'UTC')::date, f.environment, x.month,
       coalesce(x.currency, ''), x.day, (hashtext(f.original_transaction_id) & 3)::smallint,
       sum(x.gross), sum(x.refunded), sum(x.estimated), sum(x.unpriced), sum(x.priced)
FROM chain_cohort_facts f,
     LATERAL unnest(f.money_months, f.money_currencies, f.money_days, f.money_gross, f.money_refunded,
                    f.money_estimated, f.money_unpriced, f.money_priced)
         AS x(month, currency, day, gross, refunded, estimated, unpriced, priced)
WHERE f.first_paid_at IS NOT NULL
GROUP BY 1, 2, 3, 4, 5, 6, 7;

-- step 22: revenue: per-day totals of the sales, refunds and upgrade credits the report groups, kept by every apply

-- `revenue`: what a UTC day holds, counted per app, environment, day, kind (0: a sale on its purchase day, 1: the
-- refund of a priced sale on its refund day, 2: an upgrade credit on the upgrade's day) and everything the report
-- groups a row by or computes its split from: the purchase day (`bought_day`: the Small Business Program and tax
-- are read on it), product, storefront, currency, the amount (the price, or the credit; NULL: unpriced),
-- `second_year` and `estimated` (what `ReportStore.revenueGroups` reads from `chain_money_facts`). Days are
-- `floor(ms / 86400000)`. In 16 shards by chain (`hashtext(original_transaction_id) & 15`) so that concurrent
-- applies renewing the same product on the same day rarely wait on one another's row. The refresh statement of
-- `chain_money_facts` (`ChainMoneyFactsRows`) adds the difference between the chains' old and new facts rows
-- (ON CONFLICT ... sales + n, in key order), so a count may reach 0 and stay; the report sums the whole days of
-- its range from here and reads the partial days at its edges from `chain_money_facts`. The key's NULLs (no
-- storefront, currency or amount) are equal to one another: NULLS NOT DISTINCT (PostgreSQL 15).
CREATE TABLE revenue_day_totals (
    app_id                  bigint NOT NULL,
    day                     integer NOT NULL,
    environment             text NOT NULL,
    kind                    smallint NOT NULL,
    bought_day              integer NOT NULL,
    product_id              text NOT NULL,
    storefront              text,
    currency                text,
    amount_milli            bigint,
    second_year             boolean NOT NULL,
    estimated               boolean NOT NULL,
    shard                   smallint NOT NULL,
    sales                   bigint NOT NULL,
    CONSTRAINT revenue_day_totals_key UNIQUE NULLS NOT DISTINCT (app_id, day, environment, kind, bought_day, product_id,
        storefront, currency, amount_milli, second_year, estimated, shard)
);
COMMENT ON TABLE revenue_day_totals IS 'citus: coordinator';

-- The UTC day of an instant in milliseconds since 1970 (floor, also before 1970).
CREATE FUNCTION revenue_day_of(p_ms bigint) RETURNS integer LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
SELECT (p_ms / 86400000 - CASE WHEN p_ms % 86400000 < 0 THEN 1 ELSE 0 END)::integer
$$;

-- What one `chain_money_facts` row counts in `revenue_day_totals`: its sale, the refund of a priced sale, an upgrade
-- credit (estimated), each on its day (the columns the row shares with its facts row are the caller's).
CREATE FUNCTION revenue_day_rows_of(
    p_purchase_ms bigint, p_refund_ms bigint, p_credit_ms bigint, p_credit_milli bigint, p_amount_milli bigint,
    p_estimated boolean)
RETURNS TABLE (kind smallint, day integer, bought_day integer, amount_milli bigint, estimated boolean)
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
SELECT 0::smallint, revenue_day_of(p_purchase_ms), revenue_day_of(p_purchase_ms), p_amount_milli, p_estimated
UNION ALL
SELECT 1::smallint, revenue_day_of(p_refund_ms), revenue_day_of(p_purchase_ms), p_amount_milli, p_estimated
WHERE p_refund_ms IS NOT NULL AND p_amount_milli > 0
UNION ALL
SELECT 2::smallint, revenue_day_of(p_credit_ms), revenue_day_of(p_purchase_ms), p_credit_milli, true
WHERE p_credit_ms IS NOT NULL
$$;

-- The facts of the chains that exist when this step runs.
INSERT INTO revenue_day_totals
SELECT f.app_id, d.day, f.environment, d.kind, d.bought_day, f.product_id, f.storefront, f.currency, d.amount_milli,
       f.second_year, d.estimated, (hashtext(f.original_transaction_id) & 15)::smallint, count(*)
FROM chain_money_facts f
CROSS JOIN LATERAL revenue_day_rows_of(f.purchase_ms, f.refund_ms, f.credit_ms, f.credit_milli, f.amount_milli, f.estimated) d
GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12;

-- step 23: ingestion: each apply refreshes operational spans and day counts with plans its connection keeps, writing only the spans that changed

-- What step 20's refresh statement did for the chains of one apply, as a function whose statements keep their plans
-- for the connection's life (step 18 did the same for the cohort facts). Per chain, the spans are computed afresh by
-- `chain_report_spans_of` (unchanged: the rows are the same) and compared with the stored ones first: a chain whose
-- spans did not change (a renewal preference, a billing retry, a notification already applied) is not written at
-- all, where step 20's upsert locked, and so rewrote, every span of it; otherwise only the spans that differ are
-- deleted, inserted or updated (a renewal moves the end of the chain's last granting and in-force spans). The
-- entries after each chain's `counted_through` are then added to `ledger_entry_day_counts` in key order, as before.
CREATE OR REPLACE FUNCTION chain_report_spans_refresh(p_app_id bigint, p_environment text, p_chains text[])
RETURNS void LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
    v_chain text;
    v_fresh chain_report_spans[];
    v_stored chain_report_spans[];
BEGIN
    FOREACH v_chain IN ARRAY coalesce(p_chains, '{}') LOOP
        SELECT coalesce(array_agg(f ORDER BY f.kind, f.seq), '{}') INTO v_fresh
        FROM chain_report_spans_of(p_app_id, p_environment, v_chain) f;
        SELECT coalesce(array_agg(s ORDER BY s.kind, s.seq), '{}') INTO v_stored
        FROM chain_report_spans s
        WHERE s.app_id = p_app_id AND s.environment = p_environment AND s.original_transaction_id = v_chain;
        -- Arrays of rows compare element by element, a NULL column equal to a NULL column.
        CONTINUE WHEN v_fresh = v_stored;
        DELETE FROM chain_report_spans g
        WHERE g.app_id = p_app_id AND g.environment = p_environment AND g.original_transaction_id = v_chain
          AND (g.kind, g.seq) NOT IN (SELECT f.kind, f.seq FROM unnest(v_fresh) f);
        INSERT INTO chain_report_spans
        SELECT * FROM unnest(v_fresh) EXCEPT ALL SELECT * FROM unnest(v_stored)
        ON CONFLICT (app_id, environment, original_transaction_id, kind, seq) DO UPDATE SET
            starts_at = EXCLUDED.starts_at, ends_at = EXCLUDED.ends_at, product_id = EXCLUDED.product_id,
            detail = EXCLUDED.detail;
    END LOOP;
    WITH uncounted AS MATERIALIZED (
        SELECT e.entry_id, e.original_transaction_id, e.kind, e.product_id, e.reason, e.effective_at
        FROM unnest(p_chains) AS c(chain)
        LEFT JOIN chain_entries_counted w
            ON w.app_id = p_app_id AND w.environment = p_environment AND w.original_transaction_id = c.chain
        JOIN ledger_entries e
            ON e.app_id = p_app_id AND e.environment = p_environment AND e.original_transaction_id = c.chain
           AND e.entry_id > coalesce(w.counted_through, 0)
    ),
    marks AS (
        INSERT INTO chain_entries_counted
        SELECT p_app_id, p_environment, u.original_transaction_id, max(u.entry_id)
        FROM uncounted u GROUP BY u.original_transaction_id
        ON CONFLICT (app_id, environment, original_transaction_id) DO UPDATE SET
            counted_through = EXCLUDED.counted_through
    )
    INSERT INTO ledger_entry_day_counts AS k
    SELECT p_app_id, u.kind, floor(date_part('epoch', u.effective_at) / 86400)::integer, p_environment,
           CASE WHEN u.kind = 'extend' THEN '' ELSE u.product_id END,
           (hashtext(u.original_transaction_id) & 15)::smallint, count(*)
    FROM uncounted u
    WHERE u.kind IN ('grant', 'extend') OR (u.kind = 'revoke' AND u.reason = 'refund')
    GROUP BY 2, 3, 5, 6
    ORDER BY 2, 3, 5, 6
    ON CONFLICT (app_id, kind, day, environment, product_id, shard) DO UPDATE SET entries = k.entries + EXCLUDED.entries;
END
$$;
