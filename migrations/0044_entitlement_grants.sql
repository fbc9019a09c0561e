-- step 44: granted entitlements: an entitlement given to an account by hand, recorded in the ledger
-- A grant (docs/guides/accounts.md, "Granted entitlements") gives one account one entitlement of an app's catalog from
-- `starts_at` until `ends_at`, or until `revoked_at` when it is revoked earlier. `entitlement_grants` holds what
-- reads need (the entitlement read joins it on the account, so it lives with the account's other rows) and who
-- did it; the ledger holds the grant and its revocation as entries of their own kinds, `manual_grant` and
-- `manual_revoke`, which no store report counts as a purchase, a renewal or a refund: each grant is its own chain
-- of the hash chain (original_transaction_id `grant:<grant_id>`, no input), and its entry's `reason` is the JSON
-- object {"actor": the API key's name, "reason": the text given}, so who granted and why are hashed with it.
-- `idempotency_key` (the client's `Idempotency-Key`) makes a repeated request return the first grant: unique per
-- account, which is also the table's distribution value on a Citus cluster.
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_kind_check;
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_kind_check CHECK (kind IN (
    'grant', 'extend', 'revoke', 'restore', 'transfer_out', 'transfer_in', 'credit', 'debit',
    'manual_grant', 'manual_revoke'));

CREATE TABLE entitlement_grants (
    app_id bigint NOT NULL REFERENCES apps (app_id),
    account_id text NOT NULL,
    grant_id uuid NOT NULL,
    environment text NOT NULL CHECK (environment IN ('Production', 'Sandbox')),
    entitlement_id text NOT NULL CHECK (length(entitlement_id) BETWEEN 1 AND 200),
    starts_at timestamptz NOT NULL,
    ends_at timestamptz NOT NULL,
    reason text NOT NULL CHECK (length(reason) BETWEEN 1 AND 500),
    granted_by text NOT NULL,
    idempotency_key text CHECK (length(idempotency_key) BETWEEN 1 AND 200),
    revoked_at timestamptz,
    revoked_by text,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (app_id, account_id, grant_id),
    UNIQUE (app_id, account_id, idempotency_key),
    CHECK (ends_at > starts_at),
    CHECK ((revoked_at IS NULL) = (revoked_by IS NULL))
);
COMMENT ON TABLE entitlement_grants IS 'citus: distributed by account_id';
