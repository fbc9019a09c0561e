-- step 43: one outbox of the calls SubLedger owes the stores after an apply
-- Every call a committed apply owes a store is a row of `store_obligations`, inserted in the transaction of the
-- apply that decided it (so it exists exactly when its cause does), claimed by the obligation sender of any
-- `serve` or `poll` process (leased with FOR UPDATE SKIP LOCKED) and sent through its store's adapter; the outcome
-- is recorded here. It replaces `apple_write_backs` (step 30) and `google_play_acknowledgements` (step 38), whose
-- rows, done or not, move here with their attempts, leases and backoff.
--   app_store / set_app_account_token: a chain was bound to an account; `binding_sequence` is the binding's
--     position in the chain's history (each binding told once; an older one still waiting when a newer exists is
--     `superseded`); `transaction_id` is the chain's original transaction.
--   app_store / finish_transaction: a consumable or non-consumable was credited; `binding_sequence` is 0.
--   google_play / acknowledge_subscription, acknowledge_product, consume_product: a purchase token was credited;
--     one row per token (`purchase_token`, with the `product_id` Google's methods name).
-- pending/retry: to be sent; sent: the store accepted it; failed: the store refused it (final); superseded: a
-- newer binding of the same chain made it moot.
CREATE TABLE store_obligations (
    obligation_id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    app_id                  bigint NOT NULL REFERENCES apps (app_id),
    store                   text NOT NULL,
    kind                    text NOT NULL,
    environment             text NOT NULL,
    original_transaction_id text NOT NULL CHECK (length(original_transaction_id) BETWEEN 1 AND 1024),
    transaction_id          text NOT NULL CHECK (length(transaction_id) BETWEEN 1 AND 1024),
    account_id              text NOT NULL,
    binding_sequence        integer NOT NULL DEFAULT 0 CHECK (binding_sequence >= 0),
    purchase_token          text CHECK (length(purchase_token) BETWEEN 1 AND 1024),
    product_id              text,
    created_at              timestamptz NOT NULL,
    state                   text NOT NULL DEFAULT 'pending'
                                CHECK (state IN ('pending', 'retry', 'sent', 'failed', 'superseded')),
    attempts                integer NOT NULL DEFAULT 0,
    next_attempt_at         timestamptz,
    leased_until            timestamptz,
    leased_by               text,
    sent_at                 timestamptz,
    http_status             integer,
    store_error_code        bigint,
    app_account_token       uuid,
    last_error              text,
    CHECK ((store, kind) IN (('app_store', 'set_app_account_token'), ('app_store', 'finish_transaction'),
        ('google_play', 'acknowledge_subscription'), ('google_play', 'acknowledge_product'),
        ('google_play', 'consume_product'))),
    -- Google's calls name a purchase token and a product; Apple's name neither.
    CHECK ((store = 'google_play') = (purchase_token IS NOT NULL AND product_id IS NOT NULL)),
    CHECK (store = 'google_play' OR (purchase_token IS NULL AND product_id IS NULL)),
    UNIQUE (app_id, purchase_token)
);
COMMENT ON TABLE store_obligations IS 'citus: coordinator';
-- The App Store's identity of an obligation (Google's is its token, above).
CREATE UNIQUE INDEX index_store_obligations_on_app_store_identity
    ON store_obligations (app_id, environment, kind, transaction_id, binding_sequence)
    WHERE store = 'app_store';
CREATE INDEX index_store_obligations_due ON store_obligations (next_attempt_at, obligation_id)
    WHERE state IN ('pending', 'retry');

-- Every row moves, oldest first within each store as each outbox was sent. The chain is the transaction's (every
-- row's transaction was recorded by the apply that owed it; a Set App Account Token names the chain's original
-- transaction itself). Row by row (outboxes are short): on Citus `transactions` is distributed and these tables
-- stay on the coordinator, and a lookup by transaction id is a query Citus runs on any cluster, where a join of
-- the two in one statement is not.
DO $move$
DECLARE
    w record;
    g record;
    chain text;
BEGIN
    FOR w IN SELECT * FROM apple_write_backs ORDER BY write_back_id LOOP
        chain := NULL;
        IF w.kind <> 'set_app_account_token' THEN
            SELECT t.original_transaction_id INTO chain FROM transactions t
            WHERE t.app_id = w.app_id AND t.environment = w.environment AND t.transaction_id = w.transaction_id;
        END IF;
        INSERT INTO store_obligations (app_id, store, kind, environment, original_transaction_id, transaction_id,
            account_id, binding_sequence, created_at, state, attempts, next_attempt_at, leased_until, leased_by,
            sent_at, http_status, store_error_code, app_account_token, last_error)
        VALUES (w.app_id, 'app_store', w.kind, w.environment, coalesce(chain, w.transaction_id), w.transaction_id,
            w.account_id, w.sequence, w.created_at, w.state, w.attempts, w.next_attempt_at, w.leased_until,
            w.leased_by, w.sent_at, w.http_status, w.apple_error_code, w.app_account_token, w.last_error);
    END LOOP;
    FOR g IN SELECT * FROM google_play_acknowledgements ORDER BY acknowledgement_id LOOP
        chain := NULL;
        SELECT t.original_transaction_id INTO chain FROM transactions t
        WHERE t.app_id = g.app_id AND t.environment = g.environment AND t.transaction_id = g.transaction_id;
        INSERT INTO store_obligations (app_id, store, kind, environment, original_transaction_id, transaction_id,
            account_id, purchase_token, product_id, created_at, state, attempts, next_attempt_at, leased_until,
            leased_by, sent_at, http_status, last_error)
        VALUES (g.app_id, 'google_play', g.kind, g.environment, coalesce(chain, g.transaction_id), g.transaction_id,
            g.account_id, g.purchase_token, g.product_id, g.created_at, g.state, g.attempts, g.next_attempt_at,
            g.leased_until, g.leased_by, g.sent_at, g.http_status, g.last_error);
    END LOOP;
END
$move$;

DROP TABLE apple_write_backs;
DROP TABLE google_play_acknowledgements;
