import PostgresLibPQ
import SubLedgerCore

/// The web sales (Stripe's, Paddle's) among the revenue groups, with their processing fees (and the part of them a
/// refund gave back, Paddle's) and the tax the store stated.
///
/// The money aggregates (`chain_money_facts`, `revenue_day_totals`) group sales by what a store commission depends
/// on, and do not say which store sold them; a web sale pays no store commission but the payment processor's fee,
/// which the ledger keeps in the transaction's stored payload (`processingFee`, milli-units of its currency). The
/// revenue report reads these groups over its range and moves their members out of the groups the aggregates count
/// them in (`Reports.revenue`), so that their split is the web one.
extension ReportStore {
    /// The web sales, refunds and upgrade credits of [`from`, `to`) (milliseconds since 1970) of the scope, each group
    /// keyed exactly as `revenueGroups` keys it (so it cancels there), with `web` set, each sale's fee and each
    /// member's stated tax (a refund's or credit's share of its sale's).
    func webRevenueGroups(fromMilliseconds from: Int64, toMilliseconds to: Int64) throws -> [RevenueGroup] {
        func branch(
            at instant: PostgresQuery, kind: PostgresQuery, estimated: PostgresQuery, amount: PostgresQuery,
            fee: PostgresQuery, where condition: PostgresQuery
        ) -> PostgresQuery {
            // The stated tax of the sale, or the share of it the amount (a refund's, a credit's) carries.
            let tax: PostgresQuery = """
                round(\(Self.storedTax("t"))::numeric * \(amount) / nullif(f.amount_milli, 0))::bigint
                """
            return """
                SELECT (\(instant) / 86400000 - f.purchase_ms / 86400000)::bigint * 16 + \(kind)
                        + f.second_year::integer * 2 + \(estimated)::integer,
                    \(instant) / 86400000, f.app_id, f.product_id, f.storefront, f.currency, \(amount), \(fee), count(*),
                    \(tax)
                FROM chain_money_facts f JOIN scope s ON s.app_id = f.app_id
                JOIN transactions t ON t.app_id = f.app_id AND t.environment = f.environment
                    AND t.original_transaction_id = f.original_transaction_id AND t.transaction_id = f.transaction_id
                WHERE \(inEnvironment("f.environment")) AND \(statesFees("t.source"))
                  AND \(instant) >= \(from) AND \(instant) < \(to)\(condition)
                GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 10
                """
        }
        let sales = branch(
            at: "f.purchase_ms", kind: "0", estimated: "f.estimated", amount: "f.amount_milli",
            fee: Self.storedProcessingFee("t"), where: "")
        // A refund gives back the part of the fee the store states it returned (Paddle's), at most the sale's.
        let refunds = branch(
            at: "f.refund_ms", kind: "4", estimated: "f.estimated", amount: "f.refund_milli",
            fee: "least(\(Self.storedRefundedFee("t")), \(Self.storedProcessingFee("t")))",
            where: " AND f.refund_ms IS NOT NULL AND f.amount_milli > 0")
        let credits = branch(
            at: "f.credit_ms", kind: "8", estimated: "true", amount: "f.credit_milli", fee: "0::bigint",
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
        ).map { try Self.revenueGroup($0, web: true) }
    }

    /// The partial refunds of web sales (`Transaction.partialRefunds`: Stripe's refunds of part of a charge) made in
    /// [`from`, `to`) (milliseconds since 1970) of the scope, as web refund groups on the days they were made, each
    /// giving back its share of the sale's stated tax.
    ///
    /// A partial refund takes nothing back, so it is in no money aggregate (`chain_money_facts.refund_ms` is a
    /// revocation's): these groups are added to the aggregates' rather than moved out of them. A sale revoked since
    /// states none (its revocation gives the whole price back), and one is bounded by the sale's price.
    func webPartialRefundGroups(fromMilliseconds from: Int64, toMilliseconds to: Int64) throws -> [RevenueGroup] {
        try run(
            """
            WITH \(apps)
            SELECT (r.at / 86400000 - f.purchase_ms / 86400000)::bigint * 16 + 4
                    + f.second_year::integer * 2 + f.estimated::integer,
                r.at / 86400000, f.app_id, f.product_id, f.storefront, f.currency, r.amount,
                least(r.fee, \(Self.storedProcessingFee("t"))), count(*),
                round(\(Self.storedTax("t"))::numeric * r.amount / f.amount_milli)::bigint
            FROM chain_money_facts f JOIN scope s ON s.app_id = f.app_id
            JOIN transactions t ON t.app_id = f.app_id AND t.environment = f.environment
                AND t.original_transaction_id = f.original_transaction_id AND t.transaction_id = f.transaction_id
            CROSS JOIN LATERAL \(Self.storedPartialRefunds("t")) r
            WHERE \(inEnvironment("f.environment")) AND \(statesFees("t.source"))
              AND f.refund_ms IS NULL AND f.amount_milli > 0 AND r.amount <= f.amount_milli
              AND r.at >= \(from) AND r.at < \(to)
            GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 10
            """
        ).map { try Self.revenueGroup($0, web: true) }
    }

    /// The partial refunds the stored transaction `alias` (a `transactions` row) states, as rows `(at, amount, fee)`
    /// (milliseconds since 1970, milli-units; `fee` the part of the sale's fee it gave back, 0 when it states none):
    /// none when it states none. Bounded as a price is (`RevenueFieldRules`): an entry that is no such pair, or out
    /// of range, counts as none, and so does a fee out of range.
    static func storedPartialRefunds(_ alias: PostgresQuery) -> PostgresQuery {
        """
        (SELECT (e.refund ->> 'date')::bigint AS at, (e.refund ->> 'amount')::bigint AS amount,
            CASE WHEN jsonb_typeof(e.refund -> 'fee') = 'number'
                    AND (e.refund ->> 'fee')::numeric BETWEEN 0 AND 1000000000000000
                    AND (e.refund ->> 'fee')::numeric = trunc((e.refund ->> 'fee')::numeric)
                THEN (e.refund ->> 'fee')::bigint ELSE 0 END AS fee
         FROM jsonb_array_elements(CASE WHEN jsonb_typeof(\(alias).payload -> 'transaction' -> 'partialRefunds') = 'array'
             THEN \(alias).payload -> 'transaction' -> 'partialRefunds' ELSE '[]'::jsonb END) AS e(refund)
         WHERE jsonb_typeof(e.refund) = 'object'
           AND CASE WHEN jsonb_typeof(e.refund -> 'amount') = 'number' AND jsonb_typeof(e.refund -> 'date') = 'number'
               THEN (e.refund ->> 'amount')::numeric BETWEEN 1 AND 1000000000000000
                    AND (e.refund ->> 'date')::numeric BETWEEN 0 AND 253402300799999
                    AND (e.refund ->> 'amount')::numeric = trunc((e.refund ->> 'amount')::numeric)
                    AND (e.refund ->> 'date')::numeric = trunc((e.refund ->> 'date')::numeric)
               ELSE false END)
        """
    }

    /// The processing fee the stored transaction `alias` (a `transactions` row) states, in milli-units; 0 when it
    /// states none. Bounded as a price is (`RevenueFieldRules`): a value out of range counts as none.
    static func storedProcessingFee(_ alias: PostgresQuery) -> PostgresQuery {
        """
        CASE WHEN (\(alias).payload -> 'transaction' ->> 'processingFee')::numeric BETWEEN 0 AND 1000000000000000
            THEN (\(alias).payload -> 'transaction' ->> 'processingFee')::bigint ELSE 0 END
        """
    }

    /// The part of its processing fee the stored transaction `alias` (a `transactions` row) states the refunds that
    /// revoked it gave back (`refundedFee`, Paddle's), in milli-units; 0 when it states none. Bounded as a price is.
    static func storedRefundedFee(_ alias: PostgresQuery) -> PostgresQuery {
        """
        CASE WHEN (\(alias).payload -> 'transaction' ->> 'refundedFee')::numeric BETWEEN 0 AND 1000000000000000
            THEN (\(alias).payload -> 'transaction' ->> 'refundedFee')::bigint ELSE 0 END
        """
    }

    /// The tax the stored transaction `alias` (a `transactions` row) states (`tax`, Stripe's), in milli-units; NULL
    /// when it states none. Bounded as a price is (`RevenueFieldRules`): a value out of range counts as none.
    static func storedTax(_ alias: PostgresQuery) -> PostgresQuery {
        """
        CASE WHEN (\(alias).payload -> 'transaction' ->> 'tax')::numeric BETWEEN 0 AND 1000000000000000
            THEN (\(alias).payload -> 'transaction' ->> 'tax')::bigint END
        """
    }
}
