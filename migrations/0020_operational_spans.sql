-- step 20: operational reports: per-chain time spans (granting, in force, recorded state) and churn's day counts, kept by every apply
-- Per chain, the spans of time the operational reports count at an instant (docs/reports.md, "Report spans"). Each
-- row is a half-open span [starts_at, ends_at) ('-infinity' and 'infinity' are allowed) of one kind:
-- - 'granting' (`active`): the chain is owned and its effective state (`EffectiveState`, on the chain's columns as
--   stored now) is `active` or `grace_period`; `detail` is the offer of its latest transaction purchased by then
--   ('trial', 'intro' or 'paid', as the report splits it); `product_id` is the chain's.
-- - 'in_force' (`active-over-time`): a level of the chain's subscription transactions in force (purchase date to
--   the earlier of expiry and revocation): the spans of a chain add up, at every instant, to how many of its
--   transactions are in force then (touching transactions make one span).
-- - 'recorded' (`summary --at` in the past): the chain's last `chain_state_changes` row by then; `detail` is its
--   state, `product_id` its product.
-- Written by `LedgerStore.apply` for the chains it changes, in its transaction, from `chain_report_spans_of`.
CREATE TABLE chain_report_spans (
    app_id                  bigint NOT NULL,
    environment             text NOT NULL,
    original_transaction_id text NOT NULL,
    kind                    text NOT NULL,
    seq                     integer NOT NULL,
    starts_at               timestamptz NOT NULL,
    ends_at                 timestamptz NOT NULL,
    product_id              text,
    detail                  text,
    PRIMARY KEY (app_id, environment, original_transaction_id, kind, seq)
);
COMMENT ON TABLE chain_report_spans IS 'citus: distributed by original_transaction_id';
-- Each report reads the spans of its kind that end after its (first) instant, index-only.
CREATE INDEX index_chain_report_spans_granting
    ON chain_report_spans (app_id, ends_at) INCLUDE (starts_at, environment, product_id, detail)
    WHERE kind = 'granting';
CREATE INDEX index_chain_report_spans_in_force
    ON chain_report_spans (app_id, ends_at) INCLUDE (starts_at, environment)
    WHERE kind = 'in_force';
CREATE INDEX index_chain_report_spans_recorded
    ON chain_report_spans (app_id, ends_at) INCLUDE (starts_at, environment, product_id, detail)
    WHERE kind = 'recorded';

-- One chain's rows of `chain_report_spans`, from its `chains` row, transactions and state changes. The rules are
-- those of SubLedgerReports' reference queries over the ledger (ReportStore+Active, ReportStore+Summary):
-- granting until the instant the effective state leaves active/grace (EffectiveState), split where the latest
-- transaction by (purchase_date, transaction_id) changes offer; in force by the level sets of the transactions'
-- [purchase_date, least(expires_date, revocation_date)); recorded from each change to the next (by changed_at,
-- change_id), empty spans left out.
CREATE FUNCTION chain_report_spans_of(p_app_id bigint, p_environment text, p_chain text)
RETURNS SETOF chain_report_spans LANGUAGE sql STABLE AS $$
WITH chain AS (
    SELECT c.product_id,
           CASE WHEN c.state = 'active' AND c.product_type = 'auto_renewable' THEN
                     CASE WHEN c.expires_at IS NULL THEN 'infinity'::timestamptz
                          WHEN c.in_billing_retry AND c.grace_expires_at > c.expires_at THEN c.grace_expires_at
                          ELSE c.expires_at END
                WHEN c.state = 'active' AND c.product_type = 'non_renewing' THEN coalesce(c.expires_at, 'infinity')
                WHEN c.state = 'active' THEN 'infinity'::timestamptz
                ELSE coalesce(c.grace_expires_at, 'infinity') END AS granting_until
    FROM chains c
    WHERE c.app_id = p_app_id AND c.environment = p_environment AND c.original_transaction_id = p_chain
      AND c.owner_account_id IS NOT NULL AND c.state IN ('active', 'grace_period')
),
bought AS (
    SELECT t.purchase_date AS starts_at,
           coalesce(lead(t.purchase_date) OVER (ORDER BY t.purchase_date, t.transaction_id), 'infinity') AS ends_at,
           CASE WHEN t.is_trial_period THEN 'trial' WHEN t.is_in_intro_offer_period THEN 'intro' ELSE 'paid' END AS offer
    FROM transactions t
    WHERE t.app_id = p_app_id AND t.environment = p_environment AND t.original_transaction_id = p_chain
),
pieces AS (
    SELECT '-infinity'::timestamptz AS starts_at, coalesce(min(b.starts_at), 'infinity') AS ends_at, 'paid' AS offer
    FROM bought b
    UNION ALL
    SELECT b.starts_at, b.ends_at, b.offer FROM bought b WHERE b.ends_at > b.starts_at
),
granting_pieces AS (
    SELECT p.starts_at, least(p.ends_at, ch.granting_until) AS ends_at, p.offer,
           ch.product_id
    FROM pieces p CROSS JOIN chain ch
    WHERE p.starts_at < least(p.ends_at, ch.granting_until)
),
granting_runs AS (
    SELECT g.*, count(*) FILTER (WHERE g.changed) OVER (ORDER BY g.starts_at) AS run
    FROM (SELECT gp.*, gp.offer IS DISTINCT FROM lag(gp.offer) OVER (ORDER BY gp.starts_at) AS changed
          FROM granting_pieces gp) g
),
granting AS (
    SELECT min(r.starts_at) AS starts_at, max(r.ends_at) AS ends_at, min(r.product_id) AS product_id, min(r.offer) AS offer
    FROM granting_runs r GROUP BY r.run
),
edges AS (
    SELECT e.at, sum(e.delta)::integer AS delta
    FROM transactions t
    CROSS JOIN LATERAL (VALUES (t.purchase_date, 1),
                               (least(t.expires_date, coalesce(t.revocation_date, 'infinity')), -1)) AS e(at, delta)
    WHERE t.app_id = p_app_id AND t.environment = p_environment AND t.original_transaction_id = p_chain
      AND t.expires_date IS NOT NULL
      AND least(t.expires_date, coalesce(t.revocation_date, 'infinity')) > t.purchase_date
    GROUP BY e.at
    HAVING sum(e.delta) <> 0
),
levels AS (
    SELECT e.at, (sum(e.delta) OVER (ORDER BY e.at))::integer AS level,
           (sum(e.delta) OVER (ORDER BY e.at))::integer - e.delta AS previous
    FROM edges e
),
level_edges AS (
    SELECT k.k, l.at, l.level > l.previous AS up
    FROM levels l CROSS JOIN LATERAL generate_series(least(l.level, l.previous) + 1, greatest(l.level, l.previous)) AS k(k)
),
in_force AS (
    SELECT s.at AS starts_at, s.next_at AS ends_at
    FROM (SELECT le.*, lead(le.at) OVER (PARTITION BY le.k ORDER BY le.at) AS next_at FROM level_edges le) s
    WHERE s.up
),
recorded AS (
    SELECT r.starts_at, r.ends_at, r.product_id, r.state
    FROM (SELECT x.changed_at AS starts_at,
                 coalesce(lead(x.changed_at) OVER (ORDER BY x.changed_at, x.change_id), 'infinity') AS ends_at,
                 x.product_id, x.state
          FROM chain_state_changes x
          WHERE x.app_id = p_app_id AND x.environment = p_environment AND x.original_transaction_id = p_chain) r
    WHERE r.ends_at > r.starts_at
)
SELECT p_app_id, p_environment, p_chain, 'granting', (row_number() OVER (ORDER BY g.starts_at))::integer,
       g.starts_at, g.ends_at, g.product_id, g.offer
FROM granting g
UNION ALL
SELECT p_app_id, p_environment, p_chain, 'in_force', (row_number() OVER (ORDER BY f.starts_at, f.ends_at))::integer,
       f.starts_at, f.ends_at, NULL, NULL
FROM in_force f
UNION ALL
SELECT p_app_id, p_environment, p_chain, 'recorded', (row_number() OVER (ORDER BY r.starts_at))::integer,
       r.starts_at, r.ends_at, r.product_id, r.state
FROM recorded r
$$;

-- The rows of the chains that exist when this step runs.
INSERT INTO chain_report_spans
SELECT f.* FROM chains c
CROSS JOIN LATERAL chain_report_spans_of(c.app_id, c.environment, c.original_transaction_id) f;

-- `churn`: recoveries (a change from billing retry or grace back to active) over a time range, index-only, instead of
-- every change to `active` (about one per chain).
CREATE INDEX index_chain_state_changes_on_recoveries
    ON chain_state_changes (app_id, changed_at) INCLUDE (environment)
    WHERE state = 'active' AND previous_state IN ('billing_retry', 'grace_period');

-- `churn`: the ledger entries it counts (`grant` and `extend`, and `revoke` with reason `refund`), counted per app,
-- environment, kind, product (empty for `extend`, which the report does not filter by product) and UTC day (the
-- report's day number, `floor(epoch / 86400)`), in 16 shards by chain so that concurrent applies rarely wait on
-- one another's row. Exact under concurrent applies: each apply adds what it counted to the rows (ON CONFLICT ...
-- entries + n) in key order. `churn` sums the whole days of its range from here and reads the partial days at its
-- edges from `ledger_entries`. Per chain, `chain_entries_counted` holds the greatest `entry_id` counted so far (a
-- chain's entries are written under its lock, so later ones have greater ids); `LedgerStore.apply` counts the
-- chain's entries after it, after writing them, in its transaction.
CREATE TABLE ledger_entry_day_counts (
    app_id                  bigint NOT NULL,
    kind                    text NOT NULL,
    day                     integer NOT NULL,
    environment             text NOT NULL,
    product_id              text NOT NULL,
    shard                   smallint NOT NULL,
    entries                 bigint NOT NULL,
    PRIMARY KEY (app_id, kind, day, environment, product_id, shard)
);
COMMENT ON TABLE ledger_entry_day_counts IS 'citus: coordinator';
CREATE TABLE chain_entries_counted (
    app_id                  bigint NOT NULL,
    environment             text NOT NULL,
    original_transaction_id text NOT NULL,
    counted_through         bigint NOT NULL,
    PRIMARY KEY (app_id, environment, original_transaction_id)
);
COMMENT ON TABLE chain_entries_counted IS 'citus: distributed by original_transaction_id';

-- The entries and chains that exist when this step runs.
INSERT INTO chain_entries_counted
SELECT app_id, environment, original_transaction_id, max(entry_id) FROM ledger_entries GROUP BY 1, 2, 3;
INSERT INTO ledger_entry_day_counts
SELECT app_id, kind, floor(date_part('epoch', effective_at) / 86400)::integer, environment,
       CASE WHEN kind = 'extend' THEN '' ELSE product_id END, (hashtext(original_transaction_id) & 15)::smallint, count(*)
FROM ledger_entries
WHERE kind IN ('grant', 'extend') OR (kind = 'revoke' AND reason = 'refund')
GROUP BY 1, 2, 3, 4, 5, 6;
