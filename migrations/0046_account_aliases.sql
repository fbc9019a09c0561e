-- step 46: account aliases: an account merged into another, so that what still names it lands on the other
-- A merge (docs/guides/accounts.md, "Merging accounts") moves what one account of an app holds to another as
-- transfers in the ledger, and records here that the merged id (`account_id`) now means `merged_into`. Every apply
-- that names an account (a submitter, an app account token's account, an order's account) reads this table under
-- the account's lock and uses `merged_into` instead. Aliases stay flat: merging an account that others were merged
-- into re-points those aliases, and an account that is an alias cannot be merged into, so one lookup resolves.
-- Keyed and distributed by the merged id, like the account's other rows: the lookup of every submission goes to one
-- shard; listing the aliases of an account (`merged_into`) asks every shard, as support does rarely.
CREATE TABLE account_aliases (
    app_id bigint NOT NULL REFERENCES apps (app_id),
    account_id text NOT NULL CHECK (length(account_id) BETWEEN 1 AND 255),
    merged_into text NOT NULL CHECK (length(merged_into) BETWEEN 1 AND 255),
    merged_by text NOT NULL,
    merged_at timestamptz NOT NULL,
    PRIMARY KEY (app_id, account_id),
    CHECK (account_id <> merged_into)
);
COMMENT ON TABLE account_aliases IS 'citus: distributed by account_id';
