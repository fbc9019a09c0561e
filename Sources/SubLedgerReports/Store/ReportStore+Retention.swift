import PostgresLibPQ
import SubLedgerCore

extension ReportStore {
    /// How many chains of one cohort were paying in exactly the months of `mask`.
    struct RetentionPattern {
        /// The cohort's month (UTC).
        var cohort: Instant
        /// Bit k set: the chain paid for part of month k since its first payment (k below the report's months).
        var mask: Int64
        var chains: Int
    }

    /// The money of one cohort's transactions bought in one month since the first payment, in one currency.
    struct RetentionMoney {
        var cohort: Instant
        /// Months since the chain's first payment at the purchase (can exceed the report's months).
        var month: Int
        /// nil for transactions without a known amount (`unpriced` counts them).
        var currency: String?
        var grossMilli: Int64
        var refundedMilli: Int64
        var estimated: Int
        var unpriced: Int
        /// Net (gross less refunds) in the reporting currency, of the transactions whose rate is known.
        var reportingNetMilli: Int64?
        /// Transactions with an amount whose currency has no rate on or before their purchase day.
        var missingRate: Int
    }

    /// The retention patterns and money of the chains whose first payment lies in [`from`, `to`), with months
    /// `0 ..< months` tracked, converted to `reportingCurrency` when one is given.
    /// From `.totals` (the default), the cohorts whose whole UTC month lies in the range are read from the
    /// per-cohort totals (schema step 21) and only the chains of the months the range cuts from the per-chain
    /// aggregate `chain_cohort_facts` (schema step 17); from `.facts`, every chain from `chain_cohort_facts`; from
    /// `.ledger`, computed from the transactions (the reference both aggregates are tested against).
    func retention(from: Instant, to: Instant, months: Int, reportingCurrency: String?, source: CohortSource = .totals)
        throws
        -> (patterns: [RetentionPattern], money: [RetentionMoney])
    {
        var patterns: [RetentionPattern] = []
        var money: [RetentionMoney] = []
        let rows: PostgresRows
        switch source {
        case .ledger:
            rows = try run(
                retentionFromLedger(from: from, to: to, months: months, reportingCurrency: reportingCurrency))
        case .facts:
            // No whole months from the totals: [to, to) is empty.
            rows = try run(
                retentionFromAggregates(
                    from: from, to: to, months: months, reportingCurrency: reportingCurrency, wholeFrom: to, wholeTo: to
                ))
        case .totals:
            let (wholeFrom, wholeTo) = Self.wholeMonths(from: from, to: to)
            rows = try run(
                retentionFromAggregates(
                    from: from, to: to, months: months, reportingCurrency: reportingCurrency, wholeFrom: wholeFrom,
                    wholeTo: wholeTo))
        }
        for row in rows {
            let cohort = try row.instant(at: 1)
            if try row.decode(String.self, at: 0) == "paying" {
                patterns.append(
                    RetentionPattern(
                        cohort: cohort, mask: try row.decode(Int64.self, at: 2), chains: try row.decode(Int.self, at: 4)
                    ))
            } else {
                money.append(
                    RetentionMoney(
                        cohort: cohort, month: try row.decode(Int.self, at: 2),
                        currency: try row.decode(String?.self, at: 3),
                        grossMilli: try row.decode(Int64.self, at: 5), refundedMilli: try row.decode(Int64.self, at: 6),
                        estimated: try row.decode(Int.self, at: 7), unpriced: try row.decode(Int.self, at: 8),
                        reportingNetMilli: try row.decode(Int64?.self, at: 9),
                        missingRate: try row.decode(Int.self, at: 10)))
            }
        }
        return (patterns, money)
    }

    /// The UTC months that lie wholly in [`from`, `to`), as [first month's start, end of the last): from the first
    /// month start at or after `from` to the last at or before `to`; (`to`, `to`), empty, when there is none.
    static func wholeMonths(from: Instant, to: Instant) -> (from: Instant, to: Instant) {
        let fromMonth = ReportCalendar.monthStart(CalendarDay.of(from))
        let wholeFrom =
            CalendarDay.start(of: fromMonth) == from
            ? from : CalendarDay.start(of: ReportCalendar.nextMonthStart(fromMonth))
        let wholeTo = CalendarDay.start(of: ReportCalendar.monthStart(CalendarDay.of(to)))
        return wholeFrom < wholeTo ? (wholeFrom, wholeTo) : (to, to)
    }

    /// The reporting currency of the loaded exchange rates when there is exactly one; nil for none or several.
    func onlyReportingCurrency() throws -> String? {
        let loaded = try run("SELECT DISTINCT reporting_currency FROM exchange_rates LIMIT 2")
            .map { try $0.decode(String.self, at: 0) }
        return loaded.count == 1 ? loaded[0] : nil
    }

    /// The scope's chains whose first payment lies in [`from`, `to`): those of the whole UTC months [`wholeFrom`,
    /// `wholeTo`) from the per-cohort totals (schema step 21; the cohort is a month's first day there), the others
    /// (first payment in [`from`, `wholeFrom`) or [`wholeTo`, `to`)) from `chain_cohort_facts`. Chains are counted per
    /// cohort and mask of paid months cut to the report's `months`; the facts' money arrays (unnested in the select list, which streams
    /// them) and the totals' money rows are summed per cohort, month since the first payment, currency and
    /// purchase day (without a reporting currency the day is not needed and not grouped by), and each purchase
    /// day's sum is converted at the nearest earlier rate. A total that returned to zero counts nothing. With
    /// `wholeFrom` = `wholeTo` = `to` every chain is read from `chain_cohort_facts`. The same answer as
    /// `retentionFromLedger` (a property test holds them to it); no transaction is read.
    func retentionFromAggregates(
        from: Instant, to: Instant, months: Int, reportingCurrency: String?, wholeFrom: Instant, wholeTo: Instant
    ) -> PostgresQuery {
        """
        WITH \(apps),
        members AS MATERIALIZED (
            \(retentionMembers(from: from, to: wholeFrom))
            UNION ALL
            \(retentionMembers(from: wholeTo, to: to))
        ),
        chain_masks AS (
            SELECT cohort, paid_mask & ((1::bigint << \(months)::int) - 1) AS mask, 1::bigint AS chains FROM members
            UNION ALL
            SELECT t.cohort::timestamp, t.paid_mask & ((1::bigint << \(months)::int) - 1), t.chains
            FROM cohort_chain_totals t JOIN scope s ON s.app_id = t.app_id
            WHERE \(inEnvironment("t.environment")) AND \(Self.wholeCohorts("t.cohort", from: wholeFrom, to: wholeTo))
        ),
        elements AS (
            SELECT m.cohort, unnest(m.money_months) AS month, unnest(m.money_currencies) AS currency,
                   unnest(m.money_days) AS day, unnest(m.money_gross) AS gross, unnest(m.money_refunded) AS refunded,
                   unnest(m.money_estimated)::bigint AS estimated, unnest(m.money_unpriced)::bigint AS unpriced,
                   unnest(m.money_priced)::bigint AS priced
            FROM members m
            UNION ALL
            SELECT t.cohort::timestamp, t.month, nullif(t.currency, ''), t.day, t.gross, t.refunded, t.estimated,
                   t.unpriced, t.priced
            FROM cohort_money_totals t JOIN scope s ON s.app_id = t.app_id
            WHERE \(inEnvironment("t.environment")) AND \(Self.wholeCohorts("t.cohort", from: wholeFrom, to: wholeTo))
        ),
        money_days AS (
            SELECT cohort, month, currency, CASE WHEN \(reportingCurrency)::text IS NULL THEN NULL ELSE day END AS day,
                   sum(gross)::bigint AS gross, sum(refunded)::bigint AS refunded, sum(estimated) AS estimated,
                   sum(unpriced) AS unpriced, sum(priced) AS priced
            FROM elements
            GROUP BY 1, 2, 3, 4
            HAVING sum(unpriced) + sum(priced) <> 0
        ),
        \(Self.retentionMoneyAndAnswer(reportingCurrency: reportingCurrency))
        """
    }

    /// The scope's rows of `chain_cohort_facts` with a first payment in [`from`, `to`) (parameters), with their
    /// cohort: one range of the index on (app_id, first_paid_at).
    func retentionMembers(from: Instant, to: Instant) -> PostgresQuery {
        """
        SELECT date_trunc('month', f.first_paid_at AT TIME ZONE 'UTC') AS cohort, f.paid_mask,
               f.money_months, f.money_currencies, f.money_days, f.money_gross, f.money_refunded, f.money_estimated,
               f.money_unpriced, f.money_priced
        FROM chain_cohort_facts f JOIN scope s ON s.app_id = f.app_id
        WHERE \(inEnvironment("f.environment"))
          AND f.first_paid_at >= \(from)::timestamptz AND f.first_paid_at < \(to)::timestamptz
        """
    }

    /// The totals' cohorts (a month's first day, on `column`) that lie in the whole months [`from`, `to`).
    static func wholeCohorts(_ column: PostgresQuery, from: Instant, to: Instant) -> PostgresQuery {
        "\(column) >= (\(from)::timestamptz AT TIME ZONE 'UTC')::date AND \(column) < (\(to)::timestamptz AT TIME ZONE 'UTC')::date"
    }

    /// The reference computation from the ledger's transactions, which the tests hold the aggregate to (the
    /// reports read `retentionFromAggregates`). One pass over the scope's paid transactions of auto-renewable products. Each
    /// chain's anchor is its first payment (refunded or not); a transaction that was not refunded covers the months since the anchor that
    /// its paid period overlaps, `[monthsSince(purchase), monthsBefore(paid until)]`, as a bit mask; a chain's
    /// masks are OR-ed, and chains are counted per cohort and mask (few distinct masks per cohort: this keeps
    /// the answer small however many chains there are). `paid` is materialized so that the window's sort carries
    /// its few narrow columns, not the payload the refund test reads. Money is summed per cohort, month since the anchor at
    /// the purchase, and currency; each purchase day's sum is converted at the nearest earlier rate.
    func retentionFromLedger(from: Instant, to: Instant, months: Int, reportingCurrency: String?) -> PostgresQuery {
        """
        WITH \(apps),
        paid AS MATERIALIZED (
            SELECT t.app_id, t.environment, t.original_transaction_id,
                   t.purchase_date AT TIME ZONE 'UTC' AS bought,
                   (\(CohortSQL.paidUntil("t"))) AT TIME ZONE 'UTC' AS paid_until,
                   \(CohortSQL.isRefunded("t")) AS refunded,
                   \(CohortSQL.amount("t")) AS amount, \(CohortSQL.refundedAmount("t")) AS refunded_amount,
                   \(CohortSQL.currency("t")) AS currency, \(CohortSQL.estimated("t")) AS estimated
            FROM transactions t JOIN scope s ON s.app_id = t.app_id
            JOIN products p ON p.app_id = t.app_id AND p.product_id = t.product_id AND p.product_type = 'auto_renewable'
            \(CohortSQL.catalogPrice("t"))
            WHERE \(inEnvironment("t.environment")) AND \(CohortSQL.isPaid("t"))
        ),
        anchored AS (
            SELECT paid.*, min(bought) OVER (PARTITION BY app_id, environment, original_transaction_id) AS anchor FROM paid
        ),
        members AS (
            SELECT anchored.*, date_trunc('month', anchor) AS cohort, \(CohortSQL.monthsSince("anchor", "bought")) AS month,
                   CASE WHEN refunded OR paid_until IS NULL THEN NULL ELSE \(CohortSQL.monthsBefore("anchor", "paid_until")) END AS last_month
            FROM anchored
            WHERE anchor >= \(from)::timestamptz AT TIME ZONE 'UTC' AND anchor < \(to)::timestamptz AT TIME ZONE 'UTC'
        ),
        chain_masks AS (
            SELECT cohort, bit_or(CASE WHEN last_month IS NULL OR month > least(last_month, \(months)::int - 1) THEN 0::bigint
                                       ELSE (1::bigint << (least(last_month, \(months)::int - 1) + 1)) - (1::bigint << month) END) AS mask,
                   1::bigint AS chains
            FROM members
            GROUP BY app_id, environment, original_transaction_id, cohort
        ),
        money_days AS (
            SELECT cohort, month, currency, bought::date AS day,
                   coalesce(sum(amount), 0)::bigint AS gross, coalesce(sum(refunded_amount) FILTER (WHERE refunded), 0)::bigint AS refunded,
                   count(*) FILTER (WHERE estimated) AS estimated, count(*) FILTER (WHERE amount IS NULL) AS unpriced,
                   count(*) FILTER (WHERE amount IS NOT NULL) AS priced
            FROM members
            GROUP BY 1, 2, 3, 4
        ),
        \(Self.retentionMoneyAndAnswer(reportingCurrency: reportingCurrency))
        """
    }

    /// The money per cohort, month and currency from `money_days`, converted to `reportingCurrency` (each
    /// currency and purchase day's rate looked up once: the nearest earlier, 1 for the reporting currency itself),
    /// and the answer's rows from `money` and `chain_masks` (chains per cohort and mask): shared by both sources.
    static func retentionMoneyAndAnswer(reportingCurrency: String?) -> PostgresQuery {
        """
        day_rates AS (
            SELECT k.currency, k.day, CASE WHEN k.currency = \(reportingCurrency)::text THEN 1::numeric ELSE (
                SELECT x.rate FROM exchange_rates x
                WHERE x.reporting_currency = \(reportingCurrency)::text AND x.currency = k.currency AND x.rate_date <= k.day
                ORDER BY x.rate_date DESC LIMIT 1) END AS rate
            FROM (SELECT DISTINCT currency, day FROM money_days WHERE \(reportingCurrency)::text IS NOT NULL AND currency IS NOT NULL) k
        ),
        money AS (
            SELECT d.cohort, d.month, d.currency, sum(d.gross)::bigint AS gross, sum(d.refunded)::bigint AS refunded,
                   sum(d.estimated)::bigint AS estimated, sum(d.unpriced)::bigint AS unpriced,
                   CASE WHEN \(reportingCurrency)::text IS NULL THEN NULL
                        ELSE round(coalesce(sum((d.gross - d.refunded) * r.rate), 0))::bigint END AS reporting_net,
                   CASE WHEN \(reportingCurrency)::text IS NULL THEN 0
                        ELSE coalesce(sum(d.priced) FILTER (WHERE d.currency IS NOT NULL AND r.rate IS NULL), 0) END::bigint AS missing_rate
            FROM money_days d
            LEFT JOIN day_rates r ON r.currency = d.currency AND r.day = d.day
            GROUP BY 1, 2, 3
        )
        SELECT 'paying', cohort AT TIME ZONE 'UTC', mask, NULL::text, sum(chains)::bigint, 0::bigint, 0::bigint, 0::bigint,
               0::bigint, NULL::bigint, 0::bigint
        FROM chain_masks GROUP BY cohort, mask HAVING sum(chains) <> 0
        UNION ALL
        SELECT 'money', cohort AT TIME ZONE 'UTC', month, currency, 0, gross, refunded, estimated, unpriced, reporting_net, missing_rate
        FROM money
        """
    }
}
