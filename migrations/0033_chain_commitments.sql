-- step 33: each chain's billing plan and commitment end, as its latest transaction states them
-- The expiring report showed them (and counted `in_commitment`) by reading the latest transaction's stored payload
-- for every expiring chain, a lateral lookup that made it several times slower on a large ledger. The apply now
-- writes them on the chain row with the rest of its latest state (`ChainRows.write`): Apple's `billingPlanType`
-- (`MONTHLY`: a monthly plan with a 12-month commitment) and the commitment's `expiresDate`, from the signed details
-- the chain keeps of its latest transaction (by purchase date, then transaction id). Existing chains are filled here
-- from the same payload fields the report read.
ALTER TABLE chains ADD COLUMN billing_plan text, ADD COLUMN commitment_ends_at timestamptz;

UPDATE chains c SET billing_plan = l.billing_plan, commitment_ends_at = l.commitment_ends_at
FROM (
    SELECT DISTINCT ON (t.app_id, t.environment, t.original_transaction_id)
           t.app_id, t.environment, t.original_transaction_id,
           coalesce(t.payload -> 'signedDetails' ->> 'billingPlanType',
                    t.payload -> 'transaction' ->> 'billingPlanType') AS billing_plan,
           to_timestamp(coalesce(t.payload -> 'signedDetails' -> 'commitment' ->> 'expiresDate',
                                 t.payload -> 'transaction' -> 'commitment' ->> 'expiresDate')::bigint
                        / 1000.0) AS commitment_ends_at
    FROM transactions t
    ORDER BY t.app_id, t.environment, t.original_transaction_id, t.purchase_date DESC, t.transaction_id DESC
) l
WHERE l.app_id = c.app_id AND l.environment = c.environment AND l.original_transaction_id = c.original_transaction_id
  AND (l.billing_plan IS NOT NULL OR l.commitment_ends_at IS NOT NULL);
