-- step 5: renewal-date extensions: each request to Apple, per subscription and en masse
-- A mass extension (Extend Subscription Renewal Dates for All Active Subscribers) of one product: what was
-- asked, by whom, and what Apple's Get Status answered last. `subledger subscriptions extend-status` resumes
-- polling from here.
CREATE TABLE renewal_extension_requests (
    app_id                   bigint NOT NULL REFERENCES apps (app_id),
    request_identifier       text NOT NULL,
    environment              text NOT NULL,
    product_id               text NOT NULL,
    storefront_country_codes text[],
    days                     integer NOT NULL CHECK (days BETWEEN 1 AND 90),
    reason_code              integer NOT NULL CHECK (reason_code BETWEEN 0 AND 3),
    requested_by             text NOT NULL,
    requested_at             timestamptz NOT NULL,
    -- requested: recorded, Apple not yet answered; submitted: Apple accepted it; complete: Apple finished;
    -- refused: Apple refused the request.
    status                   text NOT NULL CHECK (status IN ('requested', 'submitted', 'complete', 'refused')),
    apple_error              text,
    complete_date            timestamptz,
    succeeded_count          bigint,
    failed_count             bigint,
    updated_at               timestamptz NOT NULL,
    PRIMARY KEY (app_id, request_identifier)
);

-- One subscription's extension: a single request (Extend a Subscription Renewal Date), or its part in a mass
-- request (`mass = true`, same request identifier). Rows counted by Apple's limit (two per 365 days) are
-- those `requested` (outcome unknown yet) or `succeeded`.
CREATE TABLE renewal_extensions (
    app_id                  bigint NOT NULL REFERENCES apps (app_id),
    environment             text NOT NULL,
    original_transaction_id text NOT NULL,
    request_identifier      text NOT NULL,
    mass                    boolean NOT NULL DEFAULT false,
    days                    integer NOT NULL CHECK (days BETWEEN 1 AND 90),
    reason_code             integer NOT NULL CHECK (reason_code BETWEEN 0 AND 3),
    requested_by            text NOT NULL,
    requested_at            timestamptz NOT NULL,
    -- The chain's expiry when the extension was asked for: a mass member succeeded if it moved by `days`.
    expires_before          timestamptz,
    -- requested: Apple not yet answered; succeeded: extended; refused: Apple (or, for a mass member, Apple's
    -- processing) did not extend it; failed: the call failed and its outcome is unknown to Apple's answer.
    status                  text NOT NULL CHECK (status IN ('requested', 'succeeded', 'refused', 'failed')),
    apple_error             text,
    effective_date          timestamptz,
    web_order_line_item_id  text,
    answered_at             timestamptz,
    PRIMARY KEY (app_id, environment, original_transaction_id, request_identifier),
    FOREIGN KEY (app_id, environment, original_transaction_id)
        REFERENCES chains (app_id, environment, original_transaction_id),
    CHECK (NOT mass OR expires_before IS NOT NULL)
);
CREATE INDEX index_renewal_extensions_on_app_id_and_request_identifier
    ON renewal_extensions (app_id, request_identifier);
