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

-- A paid Checkout Session an app server submits for its account is stored like the stores' submissions in `receipts` (kind
-- `stripe_checkout`, its body `{"checkout_session_id": …}`) before Stripe is asked about it.
ALTER TABLE receipts DROP CONSTRAINT receipts_kind_check;
ALTER TABLE receipts ADD CONSTRAINT receipts_kind_check
    CHECK (kind IN ('app_receipt', 'signed_transaction', 'google_purchase', 'stripe_checkout'));

ALTER TABLE notifications DROP CONSTRAINT notifications_version_check;
ALTER TABLE notifications ADD CONSTRAINT notifications_version_check
    CHECK (version IN ('v1', 'v2', 'google_rtdn', 'stripe_event'));

-- Each Stripe app's place in its events list (`GET /v1/events`, 30 days kept): the newest event whose state was
-- applied (or found applied), so a webhook Stripe dropped, or one that never reached SubLedger, is found by the next
-- read. One reader at a time per app (leased_until / leased_by).
CREATE TABLE stripe_event_cursors (
    app_id          bigint PRIMARY KEY REFERENCES apps (app_id),
    last_event_id   text CHECK (last_event_id IS NULL OR length(last_event_id) BETWEEN 1 AND 255),
    events_seen     bigint NOT NULL DEFAULT 0,
    last_polled_at  timestamptz,
    last_error      text,
    leased_until    timestamptz,
    leased_by       text
);
COMMENT ON TABLE stripe_event_cursors IS 'citus: coordinator';
