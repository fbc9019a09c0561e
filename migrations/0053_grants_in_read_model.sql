-- step 53: granted entitlements in the entitlement read model
-- An entitlement read answers in one statement (`EntitlementPeriodRows.read`). Until this step that statement read
-- the account's grants from `entitlement_grants` in an aggregate of its own: a fourth table for every read, for the
-- few accounts that have a grant. From this step each grant that gives access for some time also has a row in
-- `account_entitlement_periods`, which the read scans anyway: state 'granted', original_transaction_id the grant's
-- chain (`grant:<grant_id>`), transaction_id the grant id, entitlement_id the entitlement granted, valid from the
-- grant's start until its access ends (its end, or its revocation when earlier), which is also its expires_at. The
-- transaction that creates, revokes or moves a grant rewrites its row (`EntitlementPeriodRows.replace(grantOf:)`);
-- an erasure moves it with the account's other rows. `entitlement_grants` stays the record of the grant: who granted
-- it and why, its idempotency key, its revocation. A store's period has no entitlement id (the read maps its product
-- through the catalog).
ALTER TABLE account_entitlement_periods ADD COLUMN entitlement_id text;
ALTER TABLE account_entitlement_periods DROP CONSTRAINT account_entitlement_periods_state_check;
ALTER TABLE account_entitlement_periods DROP CONSTRAINT account_entitlement_periods_check1;
ALTER TABLE account_entitlement_periods ADD CONSTRAINT account_entitlement_periods_state_check
    CHECK (state IN ('active', 'grace_period', 'granted'));
ALTER TABLE account_entitlement_periods ADD CONSTRAINT account_entitlement_periods_row_check CHECK (
    CASE WHEN state = 'granted'
        THEN entitlement_id IS NOT NULL AND transaction_id IS NOT NULL AND product_id IS NULL
            AND valid_until IS NOT NULL AND expires_at = valid_until
        ELSE entitlement_id IS NULL AND (state IS NULL) = (transaction_id IS NULL)
            AND (state IS NULL) = (product_id IS NULL)
    END);
INSERT INTO account_entitlement_periods (app_id, environment, original_transaction_id, account_id, valid_from,
    valid_until, transaction_id, state, expires_at, entitlement_id)
SELECT app_id, environment, 'grant:' || grant_id::text, account_id,
    (extract(epoch FROM starts_at - timestamptz 'epoch') * 1000)::bigint,
    (extract(epoch FROM least(ends_at, coalesce(revoked_at, ends_at)) - timestamptz 'epoch') * 1000)::bigint,
    grant_id::text, 'granted',
    (extract(epoch FROM least(ends_at, coalesce(revoked_at, ends_at)) - timestamptz 'epoch') * 1000)::bigint,
    entitlement_id
FROM entitlement_grants
WHERE least(ends_at, coalesce(revoked_at, ends_at)) > starts_at;
