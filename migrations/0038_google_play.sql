-- step 38: Google Play on the ledger: the app's service account, submitted purchases, the lineage of purchase tokens, the acknowledgement outbox
-- An app of the catalog may sell on Google Play beside the App Store (`google_play: {package_name}` in its catalog
-- entry, kept in `apps.catalog`); its products with `store: google_play` are bought there. A Google purchase enters
-- the ledger as a transaction like an Apple one (docs/google-play.md): its order id is the transaction id, the first
-- order id of its purchase token's lineage the chain's original transaction id.

-- The package name, queryable and unique: a Developer API answer or a notification names its app by it.
-- (Column and constraints in separate statements: Citus adds no column with a constraint to a distributed table.)
ALTER TABLE apps ADD COLUMN google_play_package_name text;
ALTER TABLE apps ADD CONSTRAINT apps_google_play_package_name_check
    CHECK (google_play_package_name IS NULL OR length(google_play_package_name) BETWEEN 1 AND 255);
CREATE UNIQUE INDEX index_apps_on_google_play_package_name ON apps (google_play_package_name);
-- The service account's JSON key SubLedger calls the Developer API with, sealed like the Apple keys (plaintext only
-- where `--allow-plaintext-secrets` was given).
ALTER TABLE apps ADD COLUMN google_service_account_key text;
ALTER TABLE apps ADD COLUMN google_service_account_key_sealed bytea;
ALTER TABLE apps ADD COLUMN google_service_account_key_key_id text;

-- A submitted purchase token is stored as received before Google is asked, like a receipt: the body is the JSON
-- `{package_name, product_id, purchase_token}`.
ALTER TABLE receipts DROP CONSTRAINT receipts_kind_check;
ALTER TABLE receipts ADD CONSTRAINT receipts_kind_check
    CHECK (kind IN ('app_receipt', 'signed_transaction', 'google_purchase'));

-- Each purchase token seen, with the chain it belongs to: an upgrade, downgrade or resubscription makes a new token
-- naming the old one (`linkedPurchaseToken`), and stays on the old token's chain. Written before the apply that
-- first credits the token (it is Google's fact, not the ledger's decision); looked up by token.
CREATE TABLE google_purchase_tokens (
    app_id                  bigint NOT NULL,
    purchase_token          text NOT NULL CHECK (length(purchase_token) BETWEEN 1 AND 1024),
    environment             text NOT NULL,
    original_transaction_id text NOT NULL,
    linked_purchase_token   text,
    created_at              timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (app_id, purchase_token)
);
COMMENT ON TABLE google_purchase_tokens IS 'citus: distributed by purchase_token';

-- The outbox of acknowledgements a committed apply owes Google: each purchase token credited to an account is
-- acknowledged (a consumable consumed) once, or Google refunds it after three days. Inserted in the apply's
-- transaction; the sender (`serve` and `poll`) leases due rows with FOR UPDATE SKIP LOCKED and records the outcome.
-- pending/retry: to be sent; sent: Google accepted it; failed: Google refused it (a 4xx other than auth, final).
CREATE TABLE google_play_acknowledgements (
    acknowledgement_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    app_id             bigint NOT NULL REFERENCES apps (app_id),
    environment        text NOT NULL,
    kind               text NOT NULL
                           CHECK (kind IN ('acknowledge_subscription', 'acknowledge_product', 'consume_product')),
    purchase_token     text NOT NULL CHECK (length(purchase_token) BETWEEN 1 AND 1024),
    product_id         text NOT NULL,
    transaction_id     text NOT NULL,
    account_id         text NOT NULL,
    created_at         timestamptz NOT NULL,
    state              text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'retry', 'sent', 'failed')),
    attempts           integer NOT NULL DEFAULT 0,
    next_attempt_at    timestamptz,
    leased_until       timestamptz,
    leased_by          text,
    sent_at            timestamptz,
    http_status        integer,
    last_error         text,
    UNIQUE (app_id, purchase_token)
);
COMMENT ON TABLE google_play_acknowledgements IS 'citus: coordinator';
CREATE INDEX index_google_play_acknowledgements_due ON google_play_acknowledgements (next_attempt_at, acknowledgement_id)
    WHERE state IN ('pending', 'retry');
