-- step 45: two more key scopes (support, reports) and the audit log of what admin and support keys do
-- A support key looks customers up and changes what they are owed (grants, renewal-date extensions, merges); a
-- reports key reads the reports and the admin page's charts. Neither belongs to an app, like an admin key.
ALTER TABLE api_keys DROP CONSTRAINT api_keys_scope_check;
ALTER TABLE api_keys ADD CONSTRAINT api_keys_scope_check
    CHECK (scope IN ('app', 'admin', 'support', 'reports'));

-- One row per request of an admin or support key that changes something (every method but GET and HEAD), and
-- per read of a customer's data or of webhook endpoints; refused requests too (their status says so).
--   key_id, key_name, scope: who (the name as it was when the request came; keys are never renamed);
--   method, route: what, the route as declared (`/v1/admin/webhooks/{id}`), target: the route's parameters
--     and the `bundle_id` it named, as a JSON object of strings;
--   status: the HTTP status answered; occurred_at: the service's clock; client_address: the peer's IP address
--     (no port); request_id: the id the request's log lines carry.
-- Append-only: a trigger refuses UPDATE, DELETE and TRUNCATE, so a key that can write the database through the
-- service cannot erase its own traces through it.
CREATE TABLE audit_log (
    audit_id       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    occurred_at    timestamptz NOT NULL,
    key_id         uuid NOT NULL,
    key_name       text NOT NULL CHECK (length(key_name) BETWEEN 1 AND 200),
    scope          text NOT NULL CHECK (scope IN ('admin', 'support')),
    method         text NOT NULL CHECK (length(method) BETWEEN 1 AND 16),
    route          text NOT NULL CHECK (length(route) BETWEEN 1 AND 300),
    target         jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(target) = 'object'),
    status         integer NOT NULL CHECK (status BETWEEN 100 AND 599),
    client_address text CHECK (length(client_address) <= 64),
    request_id     text NOT NULL CHECK (length(request_id) <= 128)
);
-- On the coordinator: a few rows per operator action, read by operators only, never joined with an account's
-- rows; a reference table would copy every row to every worker in a two-phase commit for nothing.
COMMENT ON TABLE audit_log IS 'citus: coordinator';
CREATE INDEX index_audit_log_on_occurred_at ON audit_log (occurred_at, audit_id);
CREATE INDEX index_audit_log_on_key_id ON audit_log (key_id, audit_id);

CREATE FUNCTION audit_log_is_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the audit log is append-only: % refused', TG_OP
        USING ERRCODE = 'restrict_violation';
END
$$;
CREATE TRIGGER audit_log_no_update BEFORE UPDATE OR DELETE ON audit_log
    FOR EACH ROW EXECUTE FUNCTION audit_log_is_append_only();
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
    FOR EACH STATEMENT EXECUTE FUNCTION audit_log_is_append_only();
