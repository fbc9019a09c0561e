-- step 51: Apple's External Purchase reports of web purchases
-- An app that links out of iOS to buy on the web (`external_purchase.report` in the catalog) hands SubLedger the
-- external purchase token StoreKit gave it with the web order; SubLedger reports the token and its transactions to
-- Apple (Send External Purchase Report) through the store obligations outbox.
--
-- external_purchase_tokens: one row per token an app handed over (`order_id`: the web order it came with, and through
-- it the account) or that only an EXTERNAL_PURCHASE_TOKEN notification named (`order_id` NULL). A token belongs to
-- one order: the same token again for another order is refused. Once the order is paid, the Stripe chain it was
-- fulfilled by (`chain_environment`, `original_transaction_id`) is bound to it in the apply that credits it.
CREATE TABLE external_purchase_tokens (
    token_id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    app_id                  bigint NOT NULL REFERENCES apps (app_id),
    environment             text NOT NULL CHECK (environment IN ('Production', 'Sandbox')),
    external_purchase_id    text NOT NULL CHECK (length(external_purchase_id) BETWEEN 1 AND 128),
    token_type              text CHECK (token_type IS NULL OR length(token_type) BETWEEN 1 AND 64),
    token_created_at        timestamptz,
    order_id                uuid UNIQUE,
    chain_environment       text,
    original_transaction_id text CHECK (length(original_transaction_id) BETWEEN 1 AND 1024),
    recorded_at             timestamptz NOT NULL,
    UNIQUE (app_id, external_purchase_id),
    CHECK ((chain_environment IS NULL) = (original_transaction_id IS NULL)),
    CHECK (order_id IS NOT NULL OR original_transaction_id IS NULL),
    CHECK (order_id IS NULL OR token_created_at IS NOT NULL)
);
COMMENT ON TABLE external_purchase_tokens IS 'citus: coordinator';
CREATE INDEX index_external_purchase_tokens_on_chain
    ON external_purchase_tokens (app_id, chain_environment, original_transaction_id)
    WHERE original_transaction_id IS NOT NULL;

-- external_purchase_reports: each report of a token, with the `request_identifier` (a UUID) it is sent under, made
-- when the report is recorded, before it is ever sent: a report sent again (after a crash, a timeout, a 5xx) goes
-- under the same identifier. status: Apple's (LINE_ITEM with the line items recorded for it, NO_LINE_ITEM,
-- UNRECOGNIZED_TOKEN). state: pending until Apple accepted it and Retrieve External Purchase Report returned it
-- (confirmed), or Apple refused it (failed, with Apple's error objects in `apple_errors` and the refusal in words in `failure`).
CREATE TABLE external_purchase_reports (
    report_id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    token_id            bigint NOT NULL REFERENCES external_purchase_tokens (token_id),
    request_identifier  uuid NOT NULL UNIQUE,
    status              text NOT NULL CHECK (status IN ('LINE_ITEM', 'NO_LINE_ITEM', 'UNRECOGNIZED_TOKEN')),
    state               text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'confirmed', 'failed')),
    recorded_at         timestamptz NOT NULL,
    sent_at             timestamptz,
    confirmed_at        timestamptz,
    apple_errors        jsonb,
    failure             text
);
COMMENT ON TABLE external_purchase_reports IS 'citus: coordinator';
CREATE INDEX index_external_purchase_reports_on_token ON external_purchase_reports (token_id, report_id);

-- external_purchase_line_items: one per transaction event of a token's chain (a BUY per credited transaction, a
-- REFUND per one revoked), each in the one report recorded with it. `line_item_id` is Apple's `lineItemId`. Its
-- transaction's facts are copied in, so reading a report never joins `transactions` (distributed on Citus).
CREATE TABLE external_purchase_line_items (
    line_item_id    uuid PRIMARY KEY,
    token_id        bigint NOT NULL REFERENCES external_purchase_tokens (token_id),
    report_id       bigint REFERENCES external_purchase_reports (report_id),
    transaction_id  text NOT NULL CHECK (length(transaction_id) BETWEEN 1 AND 1024),
    event_type      text NOT NULL CHECK (event_type IN ('BUY', 'REFUND')),
    recorded_at     timestamptz NOT NULL,
    -- What the report says of the transaction, as the apply that recorded the line item had it: its product, its
    -- period (milliseconds since 1970), when the event happened (the purchase, or the refund), its price and tax.
    product_id      text NOT NULL CHECK (length(product_id) BETWEEN 1 AND 1024),
    period_start_ms bigint NOT NULL,
    period_end_ms   bigint,
    occurred_ms     bigint NOT NULL,
    price_milliunits bigint NOT NULL CHECK (price_milliunits >= 0),
    currency        text NOT NULL CHECK (length(currency) BETWEEN 1 AND 16),
    -- The tax in the price as Stripe stated it (NULL: none stated).
    tax_milliunits  bigint CHECK (tax_milliunits IS NULL OR tax_milliunits BETWEEN 0 AND price_milliunits),
    UNIQUE (token_id, transaction_id, event_type)
);
COMMENT ON TABLE external_purchase_line_items IS 'citus: coordinator';
CREATE INDEX index_external_purchase_line_items_on_report ON external_purchase_line_items (report_id);

-- An EXTERNAL_PURCHASE_TOKEN notification's token (`externalPurchaseToken.externalPurchaseId`), kept with the
-- notification: its apply records the report Apple asks for (UNRECOGNIZED_TOKEN for a token no order came with,
-- NO_LINE_ITEM for one whose order was never paid).
ALTER TABLE notifications ADD COLUMN external_purchase_id text
    CHECK (external_purchase_id IS NULL OR length(external_purchase_id) BETWEEN 1 AND 128);

-- The obligation that sends a report: app_store / report_external_purchase, one per report
-- (`external_purchase_report_id`, its identity). `transaction_id` is the token's `externalPurchaseId`,
-- `original_transaction_id` the bound chain (the id again for a token bound to none); `account_id` the order's
-- account, NULL for a token only a notification named.
ALTER TABLE store_obligations ADD COLUMN external_purchase_report_id bigint UNIQUE
    REFERENCES external_purchase_reports (report_id);
ALTER TABLE store_obligations DROP CONSTRAINT store_obligations_store_kind_check;
ALTER TABLE store_obligations ADD CONSTRAINT store_obligations_store_kind_check
    CHECK ((store, kind) IN (('app_store', 'set_app_account_token'), ('app_store', 'finish_transaction'),
        ('app_store', 'send_consumption_information'), ('app_store', 'report_external_purchase'),
        ('google_play', 'acknowledge_subscription'), ('google_play', 'acknowledge_product'),
        ('google_play', 'consume_product')));
ALTER TABLE store_obligations ADD CONSTRAINT store_obligations_external_purchase_report_check
    CHECK ((kind = 'report_external_purchase') = (external_purchase_report_id IS NOT NULL));
ALTER TABLE store_obligations DROP CONSTRAINT store_obligations_account_check;
ALTER TABLE store_obligations ADD CONSTRAINT store_obligations_account_check
    CHECK (kind IN ('send_consumption_information', 'report_external_purchase') OR account_id IS NOT NULL);
DROP INDEX index_store_obligations_on_app_store_identity;
CREATE UNIQUE INDEX index_store_obligations_on_app_store_identity
    ON store_obligations (app_id, environment, kind, transaction_id, binding_sequence)
    WHERE store = 'app_store' AND consumption_request_id IS NULL AND external_purchase_report_id IS NULL;
