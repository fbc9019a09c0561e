-- step 37: each account's credit and debit entries kept by account too, so that its credit balance is read where its other rows are
-- An account's credit balance (consumables bought minus refunded) was summed over `ledger_entries`, whose rows are
-- distributed by chain: on a Citus cluster every entitlement read asked every shard of the ledger for it.
-- `account_credit_entries` holds, for each `credit` and `debit` entry, the account, the entry's key and the credits
-- it moves (a debit negative); it lives with the account's other rows, and the balance is their sum. The apply
-- writes the row with its entry, in the same transaction and under the same key (a replay adds neither); the rows of
-- the entries already in the ledger are written here. `ledger_entries` stays the record.
CREATE TABLE account_credit_entries (
    app_id                  bigint NOT NULL,
    account_id              text NOT NULL,
    environment             text NOT NULL,
    original_transaction_id text NOT NULL,
    idempotency_key         text NOT NULL,
    credits                 bigint NOT NULL,
    PRIMARY KEY (app_id, account_id, environment, original_transaction_id, idempotency_key)
);
COMMENT ON TABLE account_credit_entries IS 'citus: distributed by account_id';

INSERT INTO account_credit_entries (app_id, account_id, environment, original_transaction_id, idempotency_key, credits)
SELECT app_id, account_id, environment, original_transaction_id, idempotency_key,
       CASE kind WHEN 'credit' THEN coalesce(credits, 0) ELSE -coalesce(credits, 0) END
FROM ledger_entries
WHERE kind IN ('credit', 'debit') AND account_id IS NOT NULL;
