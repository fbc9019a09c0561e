-- step 52: support lookups by a Stripe customer or charge, index-backed
-- `subledger support stripe cus_…|ch_…` and `GET /v1/admin/lookup/stripe/{id}` find the chains whose Stripe
-- transactions name the customer or the charge that paid them (`customerID`, `paymentID` of the stored transaction's
-- JSON). Without an index each lookup read every Stripe transaction of the app. Partial indexes, over the Stripe
-- transactions only: the App Store's and Google Play's writes do not maintain them. On a Citus cluster each shard of
-- `transactions` has its own (the lookup, by app and id, still asks every shard: the key is the chain).
CREATE INDEX transactions_stripe_customer
    ON transactions (app_id, ((payload -> 'transaction' ->> 'customerID')))
    WHERE source = 'stripe_api';
CREATE INDEX transactions_stripe_payment
    ON transactions (app_id, ((payload -> 'transaction' ->> 'paymentID')))
    WHERE source = 'stripe_api';
