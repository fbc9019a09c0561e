-- step 12: webhook delivery: when an endpoint's current run of failures began (automatic pausing)
-- Set by the first failure after a success, cleared by a success; an endpoint whose failures have run for
-- an hour and number at least ten is paused as 'failing' (docs/webhooks.md, "Delivery").
ALTER TABLE webhook_endpoints ADD COLUMN failing_since timestamptz;
