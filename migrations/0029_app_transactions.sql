-- step 29: app transactions: Apple's appTransactionId on every transaction, and which account owns an app purchase
-- StoreKit 2 states on every transaction the customer's `appTransactionId`: one per Apple Account and app (per
-- family member with Family Sharing), the same across redownloads, refunds and storefront changes. The ledger
-- keeps the latest signed statement of it on the transaction (`SignedTransactionDetails`); this column holds it
-- for the support lookups (`subledger support app-transaction ID`, `/v1/admin/lookup/app-transaction/{id}`).
-- Rows stored before this step never kept it: it fills as Apple sends the transactions again.
ALTER TABLE transactions ADD COLUMN app_transaction_id text
    CHECK (app_transaction_id IS NULL OR length(app_transaction_id) BETWEEN 1 AND 64);
CREATE INDEX index_transactions_on_app_id_and_app_transaction_id
    ON transactions (app_id, app_transaction_id) WHERE app_transaction_id IS NOT NULL;

-- Every accepted claim of an app purchase (`POST /v1/app-transactions`: a StoreKit 2 `AppTransaction` signed by
-- Apple, verified like any signed data), append-only: the account that owns an app transaction is the one of its
-- latest claim (the latest submitter, as for a purchase that does not renew); a claim by the account that already
-- owns it adds no row. `sequence` counts the claims of one app transaction from 0. The signed app transaction is
-- kept as received (`signed_app_transaction`), with the fields the lookups read.
CREATE TABLE app_transaction_claims (
    app_id                       bigint NOT NULL,
    environment                  text NOT NULL,
    app_transaction_id           text NOT NULL CHECK (length(app_transaction_id) BETWEEN 1 AND 64),
    sequence                     integer NOT NULL CHECK (sequence >= 0),
    account_id                   text NOT NULL,
    claimed_at                   timestamptz NOT NULL,
    original_purchase_date       timestamptz,
    preorder_date                timestamptz,
    original_application_version text,
    signed_date                  timestamptz,
    signed_app_transaction       text NOT NULL,
    PRIMARY KEY (app_id, environment, app_transaction_id, sequence)
);
COMMENT ON TABLE app_transaction_claims IS 'citus: distributed by app_transaction_id';
CREATE INDEX index_app_transaction_claims_on_app_id_and_account_id
    ON app_transaction_claims (app_id, account_id);
