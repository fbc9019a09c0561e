-- step 61: support lookups by a Paddle customer, index-backed
-- `GET /v1/admin/lookup/paddle/ctm_…` and the admin page's search box find the chains whose Paddle transactions
-- name the customer who paid them (`customerID` of the stored transaction's JSON). A partial index over the Paddle
-- transactions only, as step 52's over Stripe's: the other stores' writes do not maintain it. On a Citus cluster
-- each shard of `transactions` has its own.
CREATE INDEX transactions_paddle_customer
    ON transactions (app_id, ((payload -> 'transaction' ->> 'customerID')))
    WHERE source = 'paddle_api';
