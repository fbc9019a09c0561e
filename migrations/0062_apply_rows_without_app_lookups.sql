-- step 62: the ledger's distributed rows no longer look their app up
-- Each row an apply inserts named its app through a foreign key to `apps`: a renewal notification ran five look-ups
-- of the one `apps` row, each taking a KEY SHARE lock on that row (a write-ahead log record every time and, under
-- concurrent applies, a new multixact listing every transaction that holds the lock). The tables a Citus cluster
-- distributes drop theirs: the chain's rows (its transactions and ledger entries) and the account's. Every apply is
-- for an app it has read from `apps`, and an app is never deleted: that is now enforced on `apps` itself (a row is
-- not deleted and its `app_id` not changed), so no row can come to name an app that is gone.
-- The coordinator's tables (notifications, receipts, the projection queue, the webhook events, the obligations)
-- keep theirs: on a Citus cluster their foreign key to the reference table `apps` is what makes them Citus local
-- tables that the distributed statements can join, and the tables an operator writes by hand keep theirs too.
ALTER TABLE chains DROP CONSTRAINT chains_app_id_fkey;
ALTER TABLE transactions DROP CONSTRAINT transactions_app_id_fkey;
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_app_id_fkey;
ALTER TABLE accounts DROP CONSTRAINT accounts_app_id_fkey;
ALTER TABLE webhook_account_sequences DROP CONSTRAINT webhook_account_sequences_app_id_fkey;
ALTER TABLE webhook_clock_moments DROP CONSTRAINT webhook_clock_moments_app_id_fkey;

-- On a Citus cluster `apps` is a reference table, which takes a trigger only with this setting (for this step's
-- transaction); the trigger touches no other table, so it may fire on any node. Without Citus it names nothing.
SELECT set_config('citus.enable_unsafe_triggers', 'on', true);
CREATE FUNCTION apps_are_kept() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'an app is never deleted and keeps its app_id: rows of the ledger name it'
        USING ERRCODE = 'restrict_violation';
END
$$;
CREATE TRIGGER apps_are_kept BEFORE DELETE OR UPDATE OF app_id ON apps
    FOR EACH ROW EXECUTE FUNCTION apps_are_kept();
