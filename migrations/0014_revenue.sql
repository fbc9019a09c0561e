-- step 14: revenue: each transaction's price as Apple sent it, catalog price points, exchange rates, the small business program, tax rates
-- What Apple says a transaction cost (StoreKit 2's `price` in milli-units, `currency`, `storefront`, and the offer
-- it was bought under). verifyReceipt sends none of these: such transactions are priced from `catalog_prices`
-- and marked estimated. Filled for stored transactions from the kept payload.
ALTER TABLE transactions
    ADD COLUMN price_milliunits bigint CHECK (price_milliunits IS NULL OR price_milliunits >= 0),
    ADD COLUMN currency text CHECK (currency IS NULL OR currency ~ '^[A-Z]{3}$'),
    ADD COLUMN storefront text CHECK (storefront IS NULL OR storefront ~ '^[A-Z]{3}$'),
    ADD COLUMN offer_type integer CHECK (offer_type IS NULL OR offer_type BETWEEN 1 AND 99),
    ADD COLUMN offer_discount_type text CHECK (offer_discount_type IS NULL OR length(offer_discount_type) <= 64),
    ADD COLUMN is_trial_period boolean NOT NULL DEFAULT false,
    ADD COLUMN is_in_intro_offer_period boolean NOT NULL DEFAULT false;
UPDATE transactions SET
    price_milliunits = CASE WHEN jsonb_typeof(payload->'transaction'->'price') = 'number'
            AND (payload->'transaction'->>'price')::numeric BETWEEN 0 AND 9223372036854775807
        THEN (payload->'transaction'->>'price')::numeric::bigint END,
    currency = CASE WHEN payload->'transaction'->>'currency' ~ '^[A-Z]{3}$'
        THEN payload->'transaction'->>'currency' END,
    storefront = CASE WHEN payload->'transaction'->>'storefront' ~ '^[A-Z]{3}$'
        THEN payload->'transaction'->>'storefront' END,
    offer_type = CASE WHEN jsonb_typeof(payload->'transaction'->'offerType') = 'number'
            AND (payload->'transaction'->>'offerType')::numeric BETWEEN 1 AND 99
        THEN (payload->'transaction'->>'offerType')::numeric::integer END,
    offer_discount_type = CASE WHEN length(payload->'transaction'->>'offerDiscountType') <= 64
        THEN payload->'transaction'->>'offerDiscountType' END,
    is_trial_period = coalesce((payload->'transaction'->>'isTrialPeriod')::boolean, false),
    is_in_intro_offer_period = coalesce((payload->'transaction'->>'isInIntroOfferPeriod')::boolean, false);

-- Price points for transactions Apple sent without a price: per product and storefront (NULL: every storefront
-- without its own row), effective from a moment until the next row's. `subledger catalog apply` writes them.
CREATE TABLE catalog_prices (
    price_point_id      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    app_id              bigint NOT NULL,
    product_id          text NOT NULL,
    storefront          text CHECK (storefront IS NULL OR storefront ~ '^[A-Z]{3}$'),
    currency            text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    price_milliunits    bigint NOT NULL CHECK (price_milliunits >= 0),
    effective_from      timestamptz NOT NULL,
    created_at          timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (app_id, product_id) REFERENCES products (app_id, product_id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX index_catalog_prices_on_point
    ON catalog_prices (app_id, product_id, coalesce(storefront, ''), effective_from);

-- Exchange rates: one unit of `currency` is worth `rate` units of the reporting currency on `rate_date`
-- (`subledger fx apply`). A report uses the nearest earlier date and reports a missing rate, never a guess.
CREATE TABLE exchange_rates (
    reporting_currency  text NOT NULL CHECK (reporting_currency ~ '^[A-Z]{3}$'),
    currency            text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    rate_date           date NOT NULL,
    rate                numeric(24, 12) NOT NULL CHECK (rate > 0),
    loaded_at           timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (reporting_currency, currency, rate_date)
);

-- Apple's App Store Small Business Program: periods during which an app's commission is 15 %.
CREATE TABLE app_small_business_periods (
    app_id              bigint NOT NULL REFERENCES apps (app_id),
    effective_from      date NOT NULL,
    effective_until     date,
    PRIMARY KEY (app_id, effective_from),
    CHECK (effective_until IS NULL OR effective_until > effective_from)
);

-- Optional tax rates per storefront (the share of a customer price that is tax, deducted before commission),
-- effective from a date until the next row's.
CREATE TABLE storefront_tax_rates (
    storefront          text NOT NULL CHECK (storefront ~ '^[A-Z]{3}$'),
    effective_from      date NOT NULL,
    rate                numeric(7, 6) NOT NULL CHECK (rate >= 0 AND rate < 1),
    PRIMARY KEY (storefront, effective_from)
);

-- Every transaction's amount: Apple's price, else the catalog's price point for its product and storefront
-- in force at the purchase (`estimated`), else none (`amount_milliunits` NULL: reported as unpriced). Free trials
-- cost 0 whatever the catalog says.
CREATE VIEW transaction_amounts AS
SELECT t.app_id, t.environment, t.transaction_id, t.original_transaction_id, t.product_id, t.account_id,
    t.purchase_date, t.expires_date, t.revocation_date, t.storefront, t.offer_type, t.offer_discount_type,
    t.is_trial_period, t.is_in_intro_offer_period,
    CASE WHEN t.is_trial_period OR t.offer_discount_type = 'FREE_TRIAL' THEN 0
        ELSE coalesce(t.price_milliunits, catalog.price_milliunits) END AS amount_milliunits,
    coalesce(t.currency, catalog.currency) AS currency,
    (t.price_milliunits IS NULL AND NOT (t.is_trial_period OR t.offer_discount_type IS NOT DISTINCT FROM 'FREE_TRIAL')
        AND catalog.price_milliunits IS NOT NULL) AS estimated
FROM transactions t
LEFT JOIN LATERAL (
    SELECT p.price_milliunits, p.currency FROM catalog_prices p
    WHERE p.app_id = t.app_id AND p.product_id = t.product_id AND t.price_milliunits IS NULL
        AND (p.storefront = t.storefront OR p.storefront IS NULL) AND p.effective_from <= t.purchase_date
    ORDER BY (p.storefront IS NULL), p.effective_from DESC
    LIMIT 1
) catalog ON true;
