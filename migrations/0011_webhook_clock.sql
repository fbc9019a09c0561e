-- step 11: webhooks: the clock's moments, when an account's access from a chain ends unless something happens first
-- One row per chain that grants access until a known instant (the end of its period, or of its grace
-- period), kept by the apply transaction that moves that instant. The webhook clock (`subledger poll`)
-- takes due rows with FOR UPDATE SKIP LOCKED, decides with the chain as it stands whether access really
-- ended then (a renewal that came first means no event), writes `entitlement.expired` through the outbox
-- (its idempotency key names the chain and the moment, so several clocks write it once) and deletes or
-- moves the row.
CREATE TABLE webhook_clock_moments (
    app_id                  bigint NOT NULL REFERENCES apps (app_id),
    environment             text NOT NULL,
    original_transaction_id text NOT NULL,
    due_at                  timestamptz NOT NULL,
    PRIMARY KEY (app_id, environment, original_transaction_id)
);
CREATE INDEX index_webhook_clock_moments_on_due_at ON webhook_clock_moments (due_at);
-- Chains that already grant access when this step runs get their moment, so their expiries are told too;
-- ends already past are left alone (no burst of old expiries at the upgrade).
INSERT INTO webhook_clock_moments (app_id, environment, original_transaction_id, due_at)
SELECT app_id, environment, original_transaction_id,
       CASE WHEN state = 'grace_period' THEN grace_expires_at ELSE expires_at END
FROM chains
WHERE owner_account_id IS NOT NULL AND state IN ('active', 'grace_period')
  AND CASE WHEN state = 'grace_period' THEN grace_expires_at ELSE expires_at END > now();
