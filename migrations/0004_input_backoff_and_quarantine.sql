-- step 4: stored inputs back off and end quarantined; the renewal job applies stranded notifications
-- quarantined: the input kept failing (its last error is kept) and is no longer retried; the
-- `quarantined` report lists them. Receipts and notifications share the lifecycle.
ALTER TABLE receipts DROP CONSTRAINT receipts_status_check;
ALTER TABLE receipts ADD CONSTRAINT receipts_status_check
    CHECK (status IN ('pending', 'applied', 'invalid', 'retry', 'quarantined'));
ALTER TABLE notifications DROP CONSTRAINT notifications_status_check;
ALTER TABLE notifications ADD CONSTRAINT notifications_status_check
    CHECK (status IN ('pending', 'applied', 'invalid', 'retry', 'quarantined'));
-- A notification stored but not applied (the process died, or applying it failed) is the job's work too.
ALTER TABLE notifications ADD COLUMN next_attempt_at timestamptz;
ALTER TABLE notifications ADD COLUMN leased_until timestamptz;
ALTER TABLE notifications ADD COLUMN leased_by text;
CREATE INDEX index_notifications_on_next_attempt_at
    ON notifications (next_attempt_at) WHERE status IN ('pending', 'retry');
-- The quarantined report, newest first.
CREATE INDEX index_receipts_on_received_at_quarantined ON receipts (received_at) WHERE status = 'quarantined';
CREATE INDEX index_notifications_on_received_at_quarantined
    ON notifications (received_at) WHERE status = 'quarantined';
