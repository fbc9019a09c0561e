-- step 31: why a customer asked for a refund (Apple's consumptionRequestReason of CONSUMPTION_REQUEST)
-- Apple states the customer's reason with each CONSUMPTION_REQUEST (`UNINTENDED_PURCHASE`, `FULFILLMENT_ISSUE`,
-- `UNSATISFIED_WITH_PURCHASE`, `LEGAL`, `OTHER`). It is kept raw (a value Apple adds later is stored as sent) on
-- the notification as received, and on the consumption request recorded from it; `refund.requested` carries it.
-- Rows stored before this step have none.
ALTER TABLE notifications ADD COLUMN consumption_request_reason text
    CHECK (consumption_request_reason IS NULL OR consumption_request_reason ~ '^[A-Z_]{1,64}$');
ALTER TABLE consumption_requests ADD COLUMN reason text
    CHECK (reason IS NULL OR reason ~ '^[A-Z_]{1,64}$');
