-- step 16: report indexes for a large ledger (issue 16): every report under a second on 1,000,000 chains
-- active: the transactions bought under an offer (a few per chain at most), with what the report reads.
CREATE INDEX index_transactions_on_offers
    ON transactions (app_id, environment, original_transaction_id, purchase_date, transaction_id)
    INCLUDE (is_trial_period, is_in_intro_offer_period)
    WHERE is_trial_period OR is_in_intro_offer_period;
-- active (is a later transaction purchased by then?) and every read of a chain's transactions in order: the
-- transaction id as the tie-break, so the probe is index-only. Replaces the index without it.
CREATE INDEX index_transactions_on_chain_and_purchase_date
    ON transactions (app_id, environment, original_transaction_id, purchase_date, transaction_id);
DROP INDEX index_transactions_on_app_id_and_original_transaction_id;
-- summary --at: each chain's latest recorded state by then, read in index order (no sort of every change).
CREATE INDEX index_chain_state_changes_on_chain_and_changed_at
    ON chain_state_changes (app_id, environment, original_transaction_id, changed_at DESC, change_id DESC)
    INCLUDE (product_id, state);
-- churn: expiries and recoveries over a time range, index-only.
CREATE INDEX index_chain_state_changes_on_state_and_changed_at
    ON chain_state_changes (app_id, state, changed_at)
    INCLUDE (environment, previous_state, expiration_reason);
-- churn and refunds: ledger entries of a kind over a time range with the columns they filter on, index-only.
-- Replaces the index without them.
CREATE INDEX index_ledger_entries_on_kind_and_effective_at
    ON ledger_entries (app_id, kind, effective_at)
    INCLUDE (environment, product_id, reason);
DROP INDEX index_ledger_entries_on_app_id_and_kind_and_effective_at;
-- unclaimed: the newest transactions without an account read backwards in order (the list stops after its
-- limit instead of sorting every unclaimed transaction), and counted per app and environment index-only.
CREATE INDEX index_transactions_on_unclaimed_and_purchase_date
    ON transactions (purchase_date, transaction_id) INCLUDE (app_id, environment)
    WHERE account_id IS NULL;
