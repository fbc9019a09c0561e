-- step 60: one table of events-list cursors for every store that lists its events
-- Each app's place in a store's events list (Stripe's `GET /v1/events`, Paddle's `GET /events`): the newest event
-- whose state was applied, so a notification the store dropped or gave up on is found by the next read. One reader at
-- a time per store and app (leased_until / leased_by). Until this step Stripe's cursors had a table of their own; they
-- move here unchanged, with `store` = 'stripe'.
CREATE TABLE store_event_cursors (
    store           text NOT NULL CHECK (store ~ '^[a-z][a-z_]{0,31}$'),
    app_id          bigint NOT NULL REFERENCES apps (app_id),
    last_event_id   text CHECK (last_event_id IS NULL OR length(last_event_id) BETWEEN 1 AND 255),
    events_seen     bigint NOT NULL DEFAULT 0,
    last_polled_at  timestamptz,
    last_error      text,
    leased_until    timestamptz,
    leased_by       text,
    PRIMARY KEY (store, app_id)
);
COMMENT ON TABLE store_event_cursors IS 'citus: coordinator';

INSERT INTO store_event_cursors (store, app_id, last_event_id, events_seen, last_polled_at, last_error, leased_until,
                                 leased_by)
SELECT 'stripe', app_id, last_event_id, events_seen, last_polled_at, last_error, leased_until, leased_by
FROM stripe_event_cursors;

DROP TABLE stripe_event_cursors;
