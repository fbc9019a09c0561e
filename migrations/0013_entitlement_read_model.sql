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
