-- step 9: support lookups by app account token
-- `subledger support token UUID` and `/v1/admin/lookup/token/{uuid}` find the transactions that carry an
-- app account token, whatever case Apple sent it in.
CREATE INDEX index_transactions_on_app_id_and_lower_app_account_token
    ON transactions (app_id, lower(app_account_token)) WHERE app_account_token IS NOT NULL;
