-- step 25: input events: each re-queue of a stored receipt or notification is recorded, append-only, in its history
-- `subledger inputs requeue` used to leave only a note in the input's `last_error`, which the next attempt
-- overwrites. Each re-queue is now a row here, written in the transaction that moves the input: which input, what
-- happened, when, by whom (the command and the operating-system user that ran it), and the state it left
-- (status, attempts, last error). `subledger inputs history` shows an input's state with these events. Rows are
-- never changed or removed (the trigger refuses it).
CREATE TABLE input_events (
    event_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    input_kind text NOT NULL CHECK (input_kind IN ('receipt', 'notification')),
    input_id bigint NOT NULL,
    app_id bigint,
    event text NOT NULL CHECK (event IN ('requeued')),
    occurred_at timestamptz NOT NULL,
    actor text NOT NULL CHECK (length(actor) BETWEEN 1 AND 500),
    previous_status text NOT NULL,
    previous_attempts integer NOT NULL,
    previous_error text,
    recorded_at timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE input_events IS 'citus: coordinator';
CREATE INDEX index_input_events_on_input ON input_events (input_kind, input_id, event_id);

CREATE FUNCTION input_events_are_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'input events are append-only: % refused', TG_OP
        USING ERRCODE = 'restrict_violation';
END
$$;
CREATE TRIGGER input_events_no_update BEFORE UPDATE OR DELETE ON input_events
    FOR EACH ROW EXECUTE FUNCTION input_events_are_append_only();
CREATE TRIGGER input_events_no_truncate BEFORE TRUNCATE ON input_events
    FOR EACH STATEMENT EXECUTE FUNCTION input_events_are_append_only();
