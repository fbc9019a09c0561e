-- step 50: Stripe Billing, the third store
-- An app selling on the web through Stripe keeps two secrets beside its others, sealed at rest like them: the Stripe
-- secret key SubLedger reads the API with (`stripe_secret_key`), and the signing secret of the webhook endpoint
-- Stripe sends its events to (`stripe_webhook_secret`). A webhook's event is stored in `notifications` as received
-- (version `stripe_event`, its id `stripe:<evt id>`, so a redelivery finds the stored row) before the subscription it
-- names is read back from Stripe and applied.
ALTER TABLE apps ADD COLUMN stripe_secret_key text;
ALTER TABLE apps ADD COLUMN stripe_secret_key_sealed bytea;
ALTER TABLE apps ADD COLUMN stripe_secret_key_key_id text;
ALTER TABLE apps ADD COLUMN stripe_webhook_secret text;
ALTER TABLE apps ADD COLUMN stripe_webhook_secret_sealed bytea;
ALTER TABLE apps ADD COLUMN stripe_webhook_secret_key_id text;

ALTER TABLE notifications DROP CONSTRAINT notifications_version_check;
ALTER TABLE notifications ADD CONSTRAINT notifications_version_check
    CHECK (version IN ('v1', 'v2', 'google_rtdn', 'stripe_event'));
