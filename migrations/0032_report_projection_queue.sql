-- step 32: the report projection queue: the apply records the chains it changed; the projector keeps the aggregates
-- The reports' per-chain aggregates (steps 17, 19-23, 28) were refreshed by every apply in its own transaction, and
-- recomputed for a whole app by `catalog apply` under a lock that held applies off meanwhile. An apply now writes
-- only what reads must see at once (the ledger, the entitlement read model, the webhook outbox) and, in the same
-- transaction, one row here per chain it changed; the report projector (`subledger poll`, any number of them)
-- claims the oldest rows (`FOR UPDATE SKIP LOCKED`), refreshes those chains' aggregates under each chain's lock and
-- deletes the rows it claimed, in one transaction. `catalog apply` adds a row for every chain of the app.
--
-- Append-only, one row per change (no unique chain key): an apply never waits on a row another apply, a catalog
-- change or a projector holds, and deleting the rows a projection claimed never drops a change recorded after it.
-- A chain with several rows is refreshed once per batch; refreshing is idempotent, so a chain refreshed again
-- (its rows claimed by two batches) comes out the same. `changed_at` is when the change was recorded: the oldest
-- row is how far behind the reports are (`as_of`, `subledger_report_projection_lag_seconds`).
CREATE TABLE report_projection_queue (
    change_id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    app_id                  bigint NOT NULL REFERENCES apps (app_id),
    environment             text NOT NULL,
    original_transaction_id text NOT NULL,
    changed_at              timestamptz NOT NULL
);
CREATE INDEX index_report_projection_queue_on_app_id_and_changed_at ON report_projection_queue (app_id, changed_at);
COMMENT ON TABLE report_projection_queue IS 'citus: coordinator';
