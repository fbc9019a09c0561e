-- step 56: the ledger's writes check no app key per row
-- Each row an apply inserted into `chains`, `transactions`, `ledger_entries`, `accounts`, `webhook_account_sequences`
-- or `webhook_clock_moments` ran the foreign key's check on `apps`: a lookup of the app's row `FOR KEY SHARE`, one per
-- row. Every apply of an app locks that same row, so concurrent applies shared it through a multixact that each
-- new locker rewrote: one app's row was written to on every insert of the ledger. The apply takes the app's id from
-- its row (`StoredApp`, read from `apps`), and an app's row is never deleted nor its id changed: from this step on a
-- trigger refuses both, which is what the dropped keys held. The keys of the tables beside the ledger stay.
ALTER TABLE chains DROP CONSTRAINT chains_app_id_fkey;
ALTER TABLE transactions DROP CONSTRAINT transactions_app_id_fkey;
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_app_id_fkey;
ALTER TABLE accounts DROP CONSTRAINT accounts_app_id_fkey;
ALTER TABLE webhook_account_sequences DROP CONSTRAINT webhook_account_sequences_app_id_fkey;
ALTER TABLE webhook_clock_moments DROP CONSTRAINT webhook_clock_moments_app_id_fkey;

CREATE FUNCTION apps_keep_their_ids() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND NEW.app_id = OLD.app_id THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION 'an app''s row keeps its id and is never deleted: % refused', TG_OP
        USING ERRCODE = 'restrict_violation';
END
$$;

-- On a Citus cluster `apps` is a reference table, which takes a trigger only with this setting (the trigger touches no
-- other table); elsewhere the setting names nothing and changes nothing.
SELECT set_config('citus.enable_unsafe_triggers', 'on', true);
CREATE TRIGGER apps_keep_their_ids BEFORE DELETE OR UPDATE OF app_id ON apps
    FOR EACH ROW EXECUTE FUNCTION apps_keep_their_ids();
CREATE TRIGGER apps_no_truncate BEFORE TRUNCATE ON apps
    FOR EACH STATEMENT EXECUTE FUNCTION apps_keep_their_ids();
