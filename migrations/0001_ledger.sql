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
