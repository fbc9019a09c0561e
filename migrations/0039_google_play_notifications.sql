-- step 39: Google Play's real-time developer notifications kept like Apple's, and where the voided purchases poll stands
-- A Pub/Sub push of an RTDN is stored as received in `notifications` (version `google_rtdn`, its id
-- `google_play:<package>:<messageId>`, so a redelivery finds the stored row) before Google is asked for the state it
-- hints at; a row whose read or apply failed is applied later by the renewal job, as Apple's are.
ALTER TABLE notifications DROP CONSTRAINT notifications_version_check;
ALTER TABLE notifications ADD CONSTRAINT notifications_version_check
    CHECK (version IN ('v1', 'v2', 'google_rtdn'));

-- Each Google Play app's place in `purchases.voidedpurchases.list`: the voided time every voided purchase before
-- which has been applied, and the list in progress (its window's end and the next page's continuation token), so a
-- poll that stops between pages goes on from the page after the last one applied. One poller at a time per app
-- (leased_until / leased_by).
CREATE TABLE google_play_voided_cursors (
    app_id          bigint PRIMARY KEY REFERENCES apps (app_id),
    polled_through  timestamptz,
    window_start    timestamptz,
    window_end      timestamptz,
    page_token      text CHECK (page_token IS NULL OR length(page_token) BETWEEN 1 AND 4096),
    pages           bigint NOT NULL DEFAULT 0,
    voided_seen     bigint NOT NULL DEFAULT 0,
    last_polled_at  timestamptz,
    last_error      text,
    leased_until    timestamptz,
    leased_by       text
);
COMMENT ON TABLE google_play_voided_cursors IS 'citus: coordinator';
