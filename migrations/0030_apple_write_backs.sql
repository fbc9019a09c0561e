-- step 30: what SubLedger tells Apple after an apply: Set App Account Token and Finish Transaction
-- The outbox of calls to the App Store Server API that follow from a committed apply, for apps whose catalog
-- enables them (`write_back`). A row is inserted in the transaction of the apply that decided it, so it exists
-- exactly when its cause does; `subledger poll` sends it (leased with FOR UPDATE SKIP LOCKED, like the
-- consumption requests) and records the outcome here.
--   set_app_account_token: a chain was bound to an account (a claim or a transfer); Apple is told the account's
--     token for the chain's original transaction, so the chain's later payloads name the account.
--     `sequence` is the binding's position in the chain's history: each binding is told once, and an older one
--     still waiting when a newer exists is `superseded` rather than sent after it.
--   finish_transaction: a consumable or non-consumable was credited to an account; `sequence` is 0.
-- pending/retry: to be sent; sent: Apple accepted it; failed: Apple refused it (4xx, final); superseded: a newer
-- binding of the same chain made it moot.
CREATE TABLE apple_write_backs (
    write_back_id     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    app_id            bigint NOT NULL REFERENCES apps (app_id),
    environment       text NOT NULL,
    kind              text NOT NULL CHECK (kind IN ('set_app_account_token', 'finish_transaction')),
    transaction_id    text NOT NULL CHECK (length(transaction_id) BETWEEN 1 AND 64),
    sequence          integer NOT NULL CHECK (sequence >= 0),
    account_id        text NOT NULL,
    app_account_token uuid,
    created_at        timestamptz NOT NULL,
    state             text NOT NULL DEFAULT 'pending'
                          CHECK (state IN ('pending', 'retry', 'sent', 'failed', 'superseded')),
    attempts          integer NOT NULL DEFAULT 0,
    next_attempt_at   timestamptz,
    leased_until      timestamptz,
    leased_by         text,
    sent_at           timestamptz,
    http_status       integer,
    apple_error_code  bigint,
    last_error        text,
    UNIQUE (app_id, environment, kind, transaction_id, sequence)
);
COMMENT ON TABLE apple_write_backs IS 'citus: coordinator';
CREATE INDEX index_apple_write_backs_due ON apple_write_backs (next_attempt_at, write_back_id)
    WHERE state IN ('pending', 'retry');

-- The app account token SubLedger gives an account whose id is not itself a UUID (Apple's tokens are UUIDs), made
-- the first time the account's token is written back to Apple. A payload that carries it names the account, like
-- an account id or an order id does (docs/ownership.md, "Attribution"). Distributed by the token, which is what
-- the apply looks it up by; the sender finds an account's token by `account_id` (a fan-out on Citus, off the
-- apply) and makes one under a lock per account, so an account has one.
CREATE TABLE account_tokens (
    app_id     bigint NOT NULL,
    token      uuid NOT NULL,
    account_id text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (app_id, token)
);
COMMENT ON TABLE account_tokens IS 'citus: distributed by token';
CREATE INDEX index_account_tokens_on_app_id_and_account_id ON account_tokens (app_id, account_id);
