import PostgresLibPQ
import SubLedgerCore

/// The money reports' reads of the maintained aggregates (schema steps 19 and 21): sales, refunds and upgrade
/// credits grouped so that every member of a group has the same split, and MRR moves summed per month.
extension ReportStore {
    /// Sales (`sale`), refunds (`refund`) or upgrade credits (`credit`) that share everything their split and
    /// their row of the report depend on.
    struct RevenueGroup {
        enum Kind: Int {
            case sale = 0
            case refund = 1
            case credit = 2
        }
        var kind: Kind
        /// The day the amount counts on: the purchase, the refund or the upgrade.
        var day: Int64
        /// The purchase day (tax and the Small Business Program are read on it).
        var boughtDay: Int64
        var appID: Int64
        var productID: String
        var storefront: String?
        var currency: String?
        /// Each member's amount (the price, the amount refunded, or the credit); `nil`: unpriced.
        var amount: Int64?
        /// A year of paid service preceded the sale (`PaidServiceDays`).
        var secondYear: Bool
        var estimated: Bool
        var count: Int
        /// A web sale (Stripe): no store commission (`Commission.Basis.web`).
        var web = false
        /// Each member's payment processor fee (a web sale's: Stripe's, Paddle's), or the part of it a refund gave
        /// back (Paddle's); 0 for the stores' sales and for credits.
        var fee: Int64 = 0
        /// Each member's tax as the store stated it (a web sale's Stripe tax; a refund's or credit's share of it);
        /// `nil` where none was stated and the storefront's rate applies.
        var tax: Int64? = nil
    }

    /// The groups of [`from`, `to`) (milliseconds since 1970) of the scope, from `chain_money_facts`: sales by
    /// purchase instant, refunds of priced sales by refund instant (at the amount refunded: `refund_milli`),
    /// upgrade credits by the upgrade.
    func revenueGroups(fromMilliseconds from: Int64, toMilliseconds to: Int64) throws -> [RevenueGroup] {
        // One branch per kind: the instant its amount counts at, its amount and the rows it takes.
        func branch(
            at instant: PostgresQuery, kind: PostgresQuery, estimated: PostgresQuery, amount: PostgresQuery,
            where condition: PostgresQuery
        ) -> PostgresQuery {
            """
            SELECT \(Self.packed(day: "\(instant) / 86400000", boughtDay: "f.purchase_ms / 86400000", kind: kind,
                              secondYear: "f.second_year", estimated: estimated)),
                \(instant) / 86400000, f.app_id, f.product_id, f.storefront, f.currency, \(amount), count(*)
            FROM chain_money_facts f JOIN scope s ON s.app_id = f.app_id
            WHERE \(inEnvironment("f.environment")) AND \(instant) >= \(from) AND \(instant) < \(to)\(condition)
            GROUP BY 1, 2, 3, 4, 5, 6, 7
            """
        }
        let sales = branch(
            at: "f.purchase_ms", kind: "0", estimated: "f.estimated", amount: "f.amount_milli", where: "")
        let refunds = branch(
            at: "f.refund_ms", kind: "4", estimated: "f.estimated", amount: "f.refund_milli",
            where: " AND f.refund_ms IS NOT NULL AND f.amount_milli > 0")
        let credits = branch(
            at: "f.credit_ms", kind: "8", estimated: "true", amount: "f.credit_milli",
            where: " AND f.credit_ms IS NOT NULL")
        return try run(
            """
            WITH \(apps)
            \(sales)
            UNION ALL
            \(refunds)
            UNION ALL
            \(credits)
            """
        ).map { try Self.revenueGroup($0) }
    }

    /// One group from a row of either `revenueGroups` statement. A year by day is some 56,000 groups, so
    /// the small fields come packed in the first column (fewer cells to decode): the purchase day's distance
    /// before the day (× 16), the kind (× 4), `second_year` (× 2) and `estimated`. A web sales row
    /// (`webSaleGroups`) has the processing fee before the count.
    static func revenueGroup(_ row: PostgresRow, web: Bool = false) throws -> RevenueGroup {
        let packed = try row.decode(Int64.self, at: 0)
        let day = try row.decode(Int64.self, at: 1)
        return RevenueGroup(
            kind: RevenueGroup.Kind(rawValue: Int((packed >> 2) & 3)) ?? .sale, day: day,
            boughtDay: day - (packed >> 4),
            appID: try row.decode(Int64.self, at: 2), productID: try row.decode(String.self, at: 3),
            storefront: try row.decode(String?.self, at: 4), currency: try row.decode(String?.self, at: 5),
            amount: try row.decode(Int64?.self, at: 6), secondYear: packed & 2 != 0, estimated: packed & 1 != 0,
            count: Int(try row.decode(Int64.self, at: web ? 8 : 7)), web: web,
            fee: web ? try row.decode(Int64.self, at: 7) : 0, tax: web ? try row.decode(Int64?.self, at: 9) : nil)
    }

    /// The packed first column of a group (see `revenueGroup`), from the day, purchase day, kind (× 4) and flags.
    private static func packed(
        day: PostgresQuery, boughtDay: PostgresQuery, kind: PostgresQuery, secondYear: PostgresQuery,
        estimated: PostgresQuery
    ) -> PostgresQuery {
        "(\(day) - \(boughtDay))::bigint * 16 + \(kind) + \(secondYear)::integer * 2 + \(estimated)::integer"
    }

    /// The groups of the whole UTC days [`fromDay`, `toDay`) (day numbers) of the scope, from the per-day totals
    /// `revenue_day_totals` (schema step 22): the same groups as `revenueGroups` over those days' milliseconds,
    /// their counts summed over the shards (a key whose count came back to 0 is left out).
    func revenueGroups(fromDay: Int64, toDay: Int64) throws -> [RevenueGroup] {
        try run(
            """
            WITH \(apps)
            SELECT \(Self.packed(day: "t.day", boughtDay: "t.bought_day", kind: "0", secondYear: "t.second_year",
                              estimated: "t.estimated")) + t.kind * 4,
                t.day::bigint, t.app_id, t.product_id, t.storefront, t.currency, t.amount_milli, sum(t.sales)::bigint
            FROM revenue_day_totals t JOIN scope s ON s.app_id = t.app_id
            WHERE \(inEnvironment("t.environment")) AND t.day >= \(Int(fromDay))::integer AND t.day < \(Int(toDay))::integer
            GROUP BY 1, 2, 3, 4, 5, 6, 7
            HAVING sum(t.sales) <> 0
            """
        ).map { try Self.revenueGroup($0) }
    }

    /// One month's (or one interval's) MRR changes in one currency, summed over the scope's chains.
    struct MRRMoves {
        /// The month's first day (CalendarDay); unused for an interval.
        var monthDay: Int64
        var currency: String
        var mrrDelta: Int64
        var subscribersDelta: Int
        var estimatedDelta: Int
        /// The change of the MRR of committed subscribers (a commitment plan's transaction in force) and of
        /// their count.
        var committedMRRDelta: Int64
        var committedSubscribersDelta: Int
        var movement: MRRMovement
    }

    /// The scope's `chain_mrr_moves` summed per month and currency, for the months before `beforeDay` (all of
    /// them: MRR at a month end is the sum of the changes up to it).
    func mrrMonthMoves(beforeDay: Int64) throws -> [MRRMoves] {
        try run(
            """
            WITH \(apps)
            SELECT (m.month - DATE '1970-01-01')::bigint, m.currency, sum(m.mrr_delta)::bigint, sum(m.subscribers_delta)::bigint,
                sum(m.estimated_delta)::bigint, sum(m.new_milli)::bigint, sum(m.expansion_milli)::bigint,
                sum(m.contraction_milli)::bigint, sum(m.churned_milli)::bigint, sum(m.reactivation_milli)::bigint,
                sum(m.committed_mrr_delta)::bigint, sum(m.committed_subscribers_delta)::bigint
            FROM chain_mrr_moves m JOIN scope s ON s.app_id = m.app_id
            WHERE \(inEnvironment("m.environment")) AND m.month < DATE '1970-01-01' + \(beforeDay)::integer
            GROUP BY 1, 2
            """
        ).map(Self.moves)
    }

    /// How the scope's MRR moved from instant `previous` to instant `now` (milliseconds; not month ends), per
    /// currency: the chains with a step (`chain_mrr_steps`) between the two, each valued at both instants by the
    /// sum of its steps up to them; chains whose value did not change are left out.
    func mrrMoves(fromMilliseconds previous: Int64, toMilliseconds now: Int64) throws -> [MRRMoves] {
        try run(mrrMoves(previous: previous, now: now)).map(Self.moves)
    }

    /// The statement of `mrrMoves`.
    func mrrMoves(previous: Int64, now: Int64) -> PostgresQuery {
        """
        WITH \(apps),
        changed AS (
            SELECT DISTINCT s.app_id, s.environment, s.original_transaction_id
            FROM chain_mrr_steps s JOIN scope ON scope.app_id = s.app_id
            WHERE \(inEnvironment("s.environment"))
              AND s.at_ms > least(\(previous)::bigint, \(now)::bigint) AND s.at_ms <= greatest(\(previous)::bigint, \(now)::bigint)
        ),
        levels AS (
            SELECT s.app_id, s.environment, s.original_transaction_id, s.currency, max(s.first_paid_ms) AS first_paid_ms,
                sum(s.mrr_delta) FILTER (WHERE s.at_ms <= \(previous)) AS b_amount,
                sum(s.subscribers_delta) FILTER (WHERE s.at_ms <= \(previous)) AS b_present,
                sum(s.estimated_delta) FILTER (WHERE s.at_ms <= \(previous)) AS b_estimated,
                sum(s.committed_subscribers_delta) FILTER (WHERE s.at_ms <= \(previous)) AS b_committed,
                sum(s.mrr_delta) FILTER (WHERE s.at_ms <= \(now)) AS n_amount,
                sum(s.subscribers_delta) FILTER (WHERE s.at_ms <= \(now)) AS n_present,
                sum(s.estimated_delta) FILTER (WHERE s.at_ms <= \(now)) AS n_estimated,
                sum(s.committed_subscribers_delta) FILTER (WHERE s.at_ms <= \(now)) AS n_committed
            FROM changed c
            JOIN chain_mrr_steps s USING (app_id, environment, original_transaction_id)
            WHERE s.at_ms <= greatest(\(previous)::bigint, \(now)::bigint)
            GROUP BY 1, 2, 3, 4
        ),
        chains AS (
            SELECT max(first_paid_ms) AS first_paid_ms,
                max(b_amount) FILTER (WHERE b_present > 0) AS b_amount, max(currency) FILTER (WHERE b_present > 0) AS b_currency,
                bool_or(b_estimated > 0) FILTER (WHERE b_present > 0) AS b_estimated,
                bool_or(b_committed > 0) FILTER (WHERE b_present > 0) AS b_committed,
                max(n_amount) FILTER (WHERE n_present > 0) AS n_amount, max(currency) FILTER (WHERE n_present > 0) AS n_currency,
                bool_or(n_estimated > 0) FILTER (WHERE n_present > 0) AS n_estimated,
                bool_or(n_committed > 0) FILTER (WHERE n_present > 0) AS n_committed
            FROM levels
            GROUP BY app_id, environment, original_transaction_id
        )
        SELECT 0::bigint, m.currency, sum(m.mrr_delta)::bigint, sum(m.subscribers_delta)::bigint, sum(m.estimated_delta)::bigint,
            sum(m.new_milli)::bigint, sum(m.expansion_milli)::bigint, sum(m.contraction_milli)::bigint,
            sum(m.churned_milli)::bigint, sum(m.reactivation_milli)::bigint, sum(m.committed_mrr_delta)::bigint,
            sum(m.committed_subscribers_delta)::bigint
        FROM chains c
        CROSS JOIN LATERAL mrr_move_rows(
            c.b_amount::bigint, c.b_currency, c.b_estimated, c.b_committed, c.n_amount::bigint, c.n_currency,
            c.n_estimated, c.n_committed, coalesce(c.first_paid_ms < \(previous)::bigint, false)) m
        WHERE (c.b_amount, c.b_currency, c.b_estimated, c.b_committed)
              IS DISTINCT FROM (c.n_amount, c.n_currency, c.n_estimated, c.n_committed)
        GROUP BY m.currency
        """
    }

    private static func moves(_ row: PostgresRow) throws -> MRRMoves {
        MRRMoves(
            monthDay: try row.decode(Int64.self, at: 0), currency: try row.decode(String.self, at: 1),
            mrrDelta: try row.decode(Int64.self, at: 2), subscribersDelta: Int(try row.decode(Int64.self, at: 3)),
            estimatedDelta: Int(try row.decode(Int64.self, at: 4)),
            committedMRRDelta: try row.decode(Int64.self, at: 10),
            committedSubscribersDelta: Int(try row.decode(Int64.self, at: 11)),
            movement: MRRMovement(
                new: try row.decode(Int64.self, at: 5), expansion: try row.decode(Int64.self, at: 6),
                contraction: try row.decode(Int64.self, at: 7), churned: try row.decode(Int64.self, at: 8),
                reactivation: try row.decode(Int64.self, at: 9)))
    }
}
