-- step 49: Apple's consumption answers are store obligations
-- The answer SubLedger owes Apple for a CONSUMPTION_REQUEST notification (Send Consumption Information) becomes a
-- row of `store_obligations`, kind `send_consumption_information`, inserted in the transaction that applies the
-- notification beside its `consumption_requests` row, and sent by the one obligation sender of every `serve` and
-- `poll` process under the one retry policy. `consumption_requests` stays the request's record and state (what
-- the consumption report and the admin page read), `consumption_request_attempts` its audit trail; their leases are
-- no longer used (the obligation is leased instead).
--   app_store / send_consumption_information: `consumption_request_id` is the request (the identity: one answer
--     per request); `transaction_id` and `original_transaction_id` are the request's; `account_id` is NULL (the
--     account is read from the chain's owner when the answer is decided, as Apple asks about a purchase, not an
--     account).
-- skipped: nothing was owed after all (the customer's consent is not in force, or the app's policy is off).
ALTER TABLE store_obligations ADD COLUMN consumption_request_id bigint UNIQUE
    REFERENCES consumption_requests (request_id);
ALTER TABLE store_obligations ALTER COLUMN account_id DROP NOT NULL;
ALTER TABLE store_obligations DROP CONSTRAINT store_obligations_check;
ALTER TABLE store_obligations ADD CONSTRAINT store_obligations_store_kind_check
    CHECK ((store, kind) IN (('app_store', 'set_app_account_token'), ('app_store', 'finish_transaction'),
        ('app_store', 'send_consumption_information'), ('google_play', 'acknowledge_subscription'),
        ('google_play', 'acknowledge_product'), ('google_play', 'consume_product')));
-- A consumption answer names its request and no account; every other obligation names an account and no request.
ALTER TABLE store_obligations ADD CONSTRAINT store_obligations_consumption_request_check
    CHECK ((kind = 'send_consumption_information') = (consumption_request_id IS NOT NULL));
ALTER TABLE store_obligations ADD CONSTRAINT store_obligations_account_check
    CHECK (kind = 'send_consumption_information' OR account_id IS NOT NULL);
ALTER TABLE store_obligations DROP CONSTRAINT store_obligations_state_check;
ALTER TABLE store_obligations ADD CONSTRAINT store_obligations_state_check
    CHECK (state IN ('pending', 'retry', 'sent', 'failed', 'superseded', 'skipped'));
-- Two requests can ask about one transaction: the App Store's identity index leaves consumption answers to their
-- request's unique key.
DROP INDEX index_store_obligations_on_app_store_identity;
CREATE UNIQUE INDEX index_store_obligations_on_app_store_identity
    ON store_obligations (app_id, environment, kind, transaction_id, binding_sequence)
    WHERE store = 'app_store' AND consumption_request_id IS NULL;

-- Every request still waiting for its answer is owed one, with the attempts and backoff it has (none is lost at
-- upgrade); the oldest deadline first, as the requests were answered.
INSERT INTO store_obligations (app_id, store, kind, environment, original_transaction_id, transaction_id,
    consumption_request_id, created_at, state, attempts, next_attempt_at)
SELECT r.app_id, 'app_store', 'send_consumption_information', r.environment, r.original_transaction_id,
    r.transaction_id, r.request_id, r.recorded_at, r.state, r.attempts, r.next_attempt_at
FROM consumption_requests r
WHERE r.state IN ('pending', 'retry')
ORDER BY r.deadline_at, r.request_id;
UPDATE consumption_requests SET leased_until = NULL, leased_by = NULL WHERE leased_by IS NOT NULL;
