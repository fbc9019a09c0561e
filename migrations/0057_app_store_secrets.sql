-- step 57: each store's secrets of an app are rows, by (store, name), not columns of `apps`
-- Until this step every store added its secrets as columns of `apps` (the Google Play service account key, the Stripe
-- secret key and webhook signing secret), each with its plaintext, sealed and key-id triple. A store's secrets are now
-- rows of `app_store_secrets`, named by the store (`google_play`, `stripe`) and the secret's name within it
-- (`service_account_key`; `secret_key`, `webhook_secret`): a store added later states its secrets' names, not a
-- schema step of columns. Each row is stored as the columns were: sealed with SubLedger's secret key (`sealed`, the
-- key's id in `key_id`), or in plaintext where that was allowed, never both. The sealed values move as they are:
-- their associated data names the same secret as before (`google_service_account_key`, `stripe_secret_key`,
-- `stripe_webhook_secret`), so the keys that sealed them open them still.
--
-- The App Store's shared secret and Server API key stay columns of `apps` for now.
CREATE TABLE app_store_secrets (
    app_id      bigint NOT NULL REFERENCES apps (app_id) ON DELETE CASCADE,
    store       text NOT NULL CHECK (store ~ '^[a-z][a-z_]{0,31}$'),
    name        text NOT NULL CHECK (name ~ '^[a-z][a-z_]{0,63}$'),
    plaintext   text,
    sealed      bytea,
    key_id      text,
    updated_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (app_id, store, name),
    CHECK ((plaintext IS NULL) <> (sealed IS NULL)),
    CHECK ((sealed IS NULL) = (key_id IS NULL))
);
COMMENT ON TABLE app_store_secrets IS 'citus: reference';

INSERT INTO app_store_secrets (app_id, store, name, plaintext, sealed, key_id)
SELECT app_id, 'google_play', 'service_account_key', google_service_account_key, google_service_account_key_sealed,
       google_service_account_key_key_id
FROM apps WHERE google_service_account_key IS NOT NULL OR google_service_account_key_sealed IS NOT NULL;

INSERT INTO app_store_secrets (app_id, store, name, plaintext, sealed, key_id)
SELECT app_id, 'stripe', 'secret_key', stripe_secret_key, stripe_secret_key_sealed, stripe_secret_key_key_id
FROM apps WHERE stripe_secret_key IS NOT NULL OR stripe_secret_key_sealed IS NOT NULL;

INSERT INTO app_store_secrets (app_id, store, name, plaintext, sealed, key_id)
SELECT app_id, 'stripe', 'webhook_secret', stripe_webhook_secret, stripe_webhook_secret_sealed,
       stripe_webhook_secret_key_id
FROM apps WHERE stripe_webhook_secret IS NOT NULL OR stripe_webhook_secret_sealed IS NOT NULL;

ALTER TABLE apps
    DROP COLUMN google_service_account_key,
    DROP COLUMN google_service_account_key_sealed,
    DROP COLUMN google_service_account_key_key_id,
    DROP COLUMN stripe_secret_key,
    DROP COLUMN stripe_secret_key_sealed,
    DROP COLUMN stripe_secret_key_key_id,
    DROP COLUMN stripe_webhook_secret,
    DROP COLUMN stripe_webhook_secret_sealed,
    DROP COLUMN stripe_webhook_secret_key_id;
