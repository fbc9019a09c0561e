-- step 6: notification history cursors for missed-notification recovery
-- How far each app's notification history is known complete, per environment: every notification Apple
-- created before `complete_until` has been fetched from Get Notification History and fed through the
-- ingestion (`subledger notifications recover`, and the recovery service of `subledger poll`). NULL: no
-- window was ever completed. A recovery holds the row's lease (`leased_until`, `leased_by`) while it works,
-- so two processes never fetch the same app and environment at once; a lease whose process died runs out.
CREATE TABLE notification_history_cursors (
    app_id              bigint NOT NULL REFERENCES apps (app_id),
    environment         text NOT NULL CHECK (length(environment) BETWEEN 1 AND 32),
    complete_until      timestamptz,
    leased_until        timestamptz,
    leased_by           text,
    last_run_at         timestamptz,
    -- 'complete', 'partial' (stopped early; the cursor kept what was done), 'failed'
    last_result         text CHECK (last_result IN ('complete', 'partial', 'failed')),
    last_error          text,
    updated_at          timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (app_id, environment),
    CHECK ((leased_until IS NULL) = (leased_by IS NULL))
);
