-- step 7: consumption requests (Apple asks about a refund), the customers' consent and the apps' usage reports
-- A customer's consent to share consumption data with Apple, as the app server recorded it (granted or
-- withdrawn, with when). Append-only: the latest `consented_at` (then the latest row) is in force.
CREATE TABLE consumption_consents (
    consent_id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    app_id                  bigint NOT NULL,
    account_id              text NOT NULL,
    consented               boolean NOT NULL,
    consented_at            timestamptz NOT NULL,
    recorded_at             timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (app_id, account_id) REFERENCES accounts (app_id, account_id)
);
CREATE INDEX index_consumption_consents_on_app_id_and_account_id
    ON consumption_consents (app_id, account_id, consented_at, consent_id);

-- What the app server reported about the use of one transaction. Append-only: for each field, the latest
-- report that states it is in force.
CREATE TABLE consumption_usage_reports (
    usage_id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    app_id                  bigint NOT NULL,
    account_id              text NOT NULL,
    transaction_id          text NOT NULL,
    consumed_milliunits     integer CHECK (consumed_milliunits BETWEEN 0 AND 100000),
    play_time_minutes       bigint CHECK (play_time_minutes >= 0),
    sample_content_provided boolean,
    delivery_status         text CHECK (delivery_status IN ('delivered', 'undelivered_quality_issue',
                                'undelivered_wrong_item', 'undelivered_server_outage', 'undelivered_other')),
    recorded_at             timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (app_id, account_id) REFERENCES accounts (app_id, account_id)
);
CREATE INDEX index_consumption_usage_reports_on_app_id_and_transaction_id
    ON consumption_usage_reports (app_id, transaction_id, usage_id);

CREATE FUNCTION consumption_reports_are_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'consent and usage reports are append-only: % refused', TG_OP
        USING ERRCODE = 'restrict_violation';
END
$$;
CREATE TRIGGER consumption_consents_no_update BEFORE UPDATE OR DELETE ON consumption_consents
    FOR EACH ROW EXECUTE FUNCTION consumption_reports_are_append_only();
CREATE TRIGGER consumption_usage_reports_no_update BEFORE UPDATE OR DELETE ON consumption_usage_reports
    FOR EACH ROW EXECUTE FUNCTION consumption_reports_are_append_only();

-- One CONSUMPTION_REQUEST notification: recorded in the transaction that applies the notification (a replay
-- finds its row), answered by the renewal job within Apple's 12 hours. pending/retry: to be answered
-- (leased like the job's other work); sent: Apple accepted the answer; skipped_no_consent /
-- skipped_disabled: nothing was sent; failed: Apple refused it (4xx, final) or the deadline passed.
CREATE TABLE consumption_requests (
    request_id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    app_id                  bigint NOT NULL REFERENCES apps (app_id),
    notification_row_id     bigint NOT NULL UNIQUE REFERENCES notifications (notification_row_id),
    environment             text NOT NULL,
    transaction_id          text NOT NULL,
    original_transaction_id text NOT NULL,
    requested_at            timestamptz NOT NULL,
    deadline_at             timestamptz NOT NULL,
    state                   text NOT NULL DEFAULT 'pending' CHECK (state IN
                                ('pending', 'retry', 'sent', 'skipped_no_consent', 'skipped_disabled', 'failed')),
    attempts                integer NOT NULL DEFAULT 0,
    next_attempt_at         timestamptz,
    leased_until            timestamptz,
    leased_by               text,
    last_error              text,
    answered_at             timestamptz,
    recorded_at             timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX index_consumption_requests_on_due
    ON consumption_requests (next_attempt_at) WHERE state IN ('pending', 'retry');
CREATE INDEX index_consumption_requests_on_app_id_and_requested_at
    ON consumption_requests (app_id, requested_at);

-- The audit trail: every decision and every call to Apple for a request, with what was sent and Apple's answer.
CREATE TABLE consumption_request_attempts (
    attempt_id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    request_id              bigint NOT NULL REFERENCES consumption_requests (request_id),
    -- accepted (Apple answered 2xx), transient_failure (retried), final_failure (4xx, or past the deadline),
    -- skipped_no_consent, skipped_disabled.
    outcome                 text NOT NULL CHECK (outcome IN ('accepted', 'transient_failure', 'final_failure',
                                'skipped_no_consent', 'skipped_disabled')),
    endpoint                text CHECK (endpoint IN ('v1', 'v2')),
    body                    jsonb,
    http_status             integer,
    apple_error_code        bigint,
    detail                  text,
    attempted_at            timestamptz NOT NULL
);
CREATE INDEX index_consumption_request_attempts_on_request_id
    ON consumption_request_attempts (request_id, attempt_id);
