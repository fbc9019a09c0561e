-- step 10: webhooks: an outbox of events written with their ledger effects, endpoints and deliveries
-- The outbox. An event is inserted in the same transaction as the ledger effect (or the clock's
-- decision) that causes it, so there is no event without its effect and no effect without its event.
-- `idempotency_key` is derived from the cause (the input, the transaction, the expiry moment) so that a
-- replayed input inserts nothing new. `body` is the event exactly as it is delivered (JSON text,
-- docs/webhooks.md): a replay sends the same bytes.
CREATE TABLE webhook_events (
    event_id                uuid PRIMARY KEY,
    app_id                  bigint NOT NULL REFERENCES apps (app_id),
    environment             text NOT NULL,
    -- The account the event is about; NULL only for events about no account (transaction.unclaimed
    -- before any claim, refund.requested for an unclaimed transaction).
    account_id              text,
    -- Per (app, environment, account): 1, 2, 3, ... in commit order of the events of that account.
    account_sequence        bigint CHECK (account_sequence > 0),
    event_type              text NOT NULL CHECK (length(event_type) BETWEEN 1 AND 100),
    occurred_at             timestamptz NOT NULL,
    -- What caused it: 'notification' (cause_id: Apple's notification UUID), 'receipt' (receipt_id),
    -- 'transaction' (transaction id), 'poll', 'clock', 'admin' (an operator's command), 'test'.
    cause_kind              text NOT NULL CHECK (cause_kind IN
                                ('notification', 'receipt', 'transaction', 'poll', 'clock', 'admin', 'test')),
    cause_id                text,
    idempotency_key         text NOT NULL CHECK (length(idempotency_key) BETWEEN 1 AND 1000),
    body                    text NOT NULL,
    created_at              timestamptz NOT NULL DEFAULT now(),
    UNIQUE (app_id, idempotency_key),
    CHECK ((account_id IS NULL) = (account_sequence IS NULL))
);
CREATE UNIQUE INDEX index_webhook_events_on_account_sequence
    ON webhook_events (app_id, environment, account_id, account_sequence) WHERE account_id IS NOT NULL;
CREATE INDEX index_webhook_events_on_created_at ON webhook_events (app_id, created_at);

-- The last sequence number handed out per account (UPDATE ... RETURNING serializes writers of one account).
CREATE TABLE webhook_account_sequences (
    app_id                  bigint NOT NULL REFERENCES apps (app_id),
    environment             text NOT NULL,
    account_id              text NOT NULL,
    last_sequence           bigint NOT NULL CHECK (last_sequence > 0),
    PRIMARY KEY (app_id, environment, account_id)
);

-- Where an app's events go. The signing secrets are sealed like the apps' secrets when a SubLedger
-- secret key is configured (`*_sealed` + `*_key_id`), plaintext otherwise; during a rotation the
-- previous secret stays valid until `previous_secret_expires_at`, so requests carry two signatures.
CREATE TABLE webhook_endpoints (
    endpoint_id             uuid PRIMARY KEY,
    app_id                  bigint NOT NULL REFERENCES apps (app_id),
    url                     text NOT NULL CHECK (length(url) BETWEEN 1 AND 2048),
    description             text CHECK (length(description) <= 500),
    -- Empty: every event type (and every environment).
    event_types             text[] NOT NULL DEFAULT '{}',
    environments            text[] NOT NULL DEFAULT '{}',
    -- Added with the explicit flag that allows private network addresses (docs/webhooks.md).
    allow_private_network   boolean NOT NULL DEFAULT false,
    state                   text NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'paused', 'removed')),
    -- Why it is paused: 'manual' (an operator) or 'failing' (deliveries kept failing).
    paused_reason           text CHECK (paused_reason IN ('manual', 'failing')),
    paused_at               timestamptz,
    consecutive_failures    integer NOT NULL DEFAULT 0 CHECK (consecutive_failures >= 0),
    secret                  text,
    secret_sealed           bytea,
    secret_key_id           text,
    previous_secret         text,
    previous_secret_sealed  bytea,
    previous_secret_key_id  text,
    previous_secret_expires_at timestamptz,
    created_at              timestamptz NOT NULL DEFAULT now(),
    updated_at              timestamptz NOT NULL DEFAULT now(),
    removed_at              timestamptz,
    CHECK ((state = 'paused') = (paused_reason IS NOT NULL)),
    CHECK ((secret IS NULL) <> (secret_sealed IS NULL)),
    CHECK ((secret_sealed IS NULL) = (secret_key_id IS NULL)),
    CHECK (previous_secret IS NULL OR previous_secret_sealed IS NULL),
    CHECK ((previous_secret_sealed IS NULL) = (previous_secret_key_id IS NULL))
);
CREATE INDEX index_webhook_endpoints_on_app_id ON webhook_endpoints (app_id) WHERE state <> 'removed';

-- One row per (event, endpoint) to deliver; a replay adds new rows. Deliverers claim due rows with
-- FOR UPDATE SKIP LOCKED and a lease, like the renewal job; a lease that runs out is taken over.
CREATE TABLE webhook_deliveries (
    delivery_id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_id                uuid NOT NULL REFERENCES webhook_events (event_id),
    endpoint_id             uuid NOT NULL REFERENCES webhook_endpoints (endpoint_id),
    state                   text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'failed')),
    attempts                integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    next_attempt_at         timestamptz NOT NULL DEFAULT now(),
    leased_until            timestamptz,
    leased_by               text,
    last_attempt_at         timestamptz,
    last_status             integer,
    last_error              text,
    delivered_at            timestamptz,
    -- Why the row exists: 'event' (fan-out when the event was written), 'replay', 'test'.
    origin                  text NOT NULL DEFAULT 'event' CHECK (origin IN ('event', 'replay', 'test')),
    created_at              timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX index_webhook_deliveries_on_due
    ON webhook_deliveries (next_attempt_at) WHERE state = 'pending';
CREATE INDEX index_webhook_deliveries_on_endpoint ON webhook_deliveries (endpoint_id, delivery_id);
CREATE INDEX index_webhook_deliveries_on_event ON webhook_deliveries (event_id);

-- Every attempt, for `webhooks deliveries` and the admin page's recent failures.
CREATE TABLE webhook_delivery_attempts (
    attempt_id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    delivery_id             bigint NOT NULL REFERENCES webhook_deliveries (delivery_id),
    attempted_at            timestamptz NOT NULL,
    duration_ms             integer,
    -- The receiver's status; NULL when no response came (the error says why).
    status                  integer,
    error                   text CHECK (length(error) <= 2000),
    deliverer               text NOT NULL
);
CREATE INDEX index_webhook_delivery_attempts_on_delivery ON webhook_delivery_attempts (delivery_id, attempt_id);
CREATE INDEX index_webhook_delivery_attempts_on_attempted_at ON webhook_delivery_attempts (attempted_at);

-- Fan-out: an event becomes one delivery per matching endpoint of its app, in the event's own
-- transaction (paused endpoints included: resuming delivers their backlog), and deliverers are woken.
-- A test event (`webhooks test`) goes only where its command sends it.
CREATE FUNCTION webhook_events_fan_out() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.cause_kind = 'test' THEN
        RETURN NULL;
    END IF;
    INSERT INTO webhook_deliveries (event_id, endpoint_id)
    SELECT NEW.event_id, e.endpoint_id
    FROM webhook_endpoints e
    WHERE e.app_id = NEW.app_id
      AND e.state <> 'removed'
      AND (cardinality(e.event_types) = 0 OR NEW.event_type = ANY (e.event_types))
      AND (cardinality(e.environments) = 0 OR NEW.environment = ANY (e.environments));
    IF FOUND THEN
        PERFORM pg_notify('subledger_webhooks', '');
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER webhook_events_fan_out AFTER INSERT ON webhook_events
    FOR EACH ROW EXECUTE FUNCTION webhook_events_fan_out();
