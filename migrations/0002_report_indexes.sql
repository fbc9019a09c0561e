-- step 2: report indexes
-- summary and active: an index-only scan of every chain's state columns, per app and product.
CREATE INDEX index_chains_on_app_id_and_product_id_and_state
    ON chains (app_id, product_id, state)
    INCLUDE (environment, product_type, expires_at, in_billing_retry, grace_expires_at, owner_account_id);
-- churn (grant and extend entries) and refunds (revoke and debit entries) over a time range.
CREATE INDEX index_ledger_entries_on_app_id_and_kind_and_effective_at
    ON ledger_entries (app_id, kind, effective_at);
-- transfers over a time range: bindings after the first claim.
CREATE INDEX index_ownership_bindings_on_app_id_and_started_at
    ON ownership_bindings (app_id, started_at) WHERE sequence > 0;
-- active subscriptions over time: the transactions still running after a day, index-only.
CREATE INDEX index_transactions_on_app_id_and_expires_date
    ON transactions (app_id, expires_date) INCLUDE (environment, purchase_date, revocation_date);
