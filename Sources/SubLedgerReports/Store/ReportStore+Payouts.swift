import PostgresLibPQ
import SubLedgerCore

/// The sales a store states in the seller's payout currency (`Transaction.payout`: Paddle's `payout_totals`), read
/// from the ledger's kept transactions: the revenue report's payouts, in the store's own conversion.
extension ReportStore {
    /// One day's sales, or refunds, in one payout currency.
    struct PayoutGroup {
        enum Kind: Int {
            /// Sales bought that day: `total`, `tax`, `fee` and `earnings` are theirs.
            case sale = 0
            /// Refunds made that day: `earnings` is what they took back; the others are 0.
            case refund = 1
        }

        var kind: Kind
        var day: Int64
        var currency: String
        var count: Int
        var total: Int64
        var tax: Int64
        var fee: Int64
        var earnings: Int64
    }

    /// The payout groups of [`from`, `to`) of the scope: sales by purchase instant;
    /// the earnings refunds took back by their instant (a revocation's at the revocation, each partial refund's on
    /// its own day). A payout, or a refund's earnings, that is not what the ledger writes (a three-letter code,
    /// whole milli-units within a price's bounds) counts as none.
    func payoutGroups(from: Instant, to: Instant) throws -> [PayoutGroup] {
        func bounded(_ value: PostgresQuery) -> PostgresQuery {
            """
            CASE WHEN jsonb_typeof(\(value)) = 'number'
                THEN (\(value) #>> '{}')::numeric BETWEEN 0 AND 1000000000000000
                    AND (\(value) #>> '{}')::numeric = trunc((\(value) #>> '{}')::numeric)
                ELSE false END
            """
        }
        let payout: PostgresQuery = "t.payload -> 'transaction' -> 'payout'"
        let stated: PostgresQuery = """
            CASE WHEN jsonb_typeof(\(payout)) = 'object' THEN (\(payout) ->> 'currency') ~ '^[A-Z]{3}$'
                AND \(bounded("\(payout) -> 'total'")) AND \(bounded("\(payout) -> 'tax'"))
                AND \(bounded("\(payout) -> 'fee'")) AND \(bounded("\(payout) -> 'earnings'")) ELSE false END
            """
        let purchased: PostgresQuery = "(extract(epoch FROM t.purchase_date) * 1000)::bigint"
        let revoked: PostgresQuery = "(extract(epoch FROM t.revocation_date) * 1000)::bigint"
        return try run(
            """
            WITH \(apps)
            SELECT 0, \(purchased) / 86400000, \(payout) ->> 'currency', count(*),
                sum((\(payout) ->> 'total')::bigint)::bigint, sum((\(payout) ->> 'tax')::bigint)::bigint,
                sum((\(payout) ->> 'fee')::bigint)::bigint, sum((\(payout) ->> 'earnings')::bigint)::bigint
            FROM transactions t JOIN scope s ON s.app_id = t.app_id
            WHERE \(inEnvironment("t.environment")) AND \(statesFees("t.source")) AND \(stated)
              AND t.purchase_date >= \(from)::timestamptz
              AND t.purchase_date < \(to)::timestamptz
            GROUP BY 1, 2, 3
            UNION ALL
            SELECT 1, \(revoked) / 86400000, \(payout) ->> 'currency', count(*), 0, 0, 0,
                sum((\(payout) ->> 'refundedEarnings')::bigint)::bigint
            FROM transactions t JOIN scope s ON s.app_id = t.app_id
            WHERE \(inEnvironment("t.environment")) AND \(statesFees("t.source")) AND \(stated)
              AND \(bounded("\(payout) -> 'refundedEarnings'"))
              AND t.revocation_date >= \(from)::timestamptz
              AND t.revocation_date < \(to)::timestamptz
            GROUP BY 1, 2, 3
            UNION ALL
            SELECT 1, (e.refund ->> 'date')::bigint / 86400000, \(payout) ->> 'currency', count(*), 0, 0, 0,
                sum((e.refund ->> 'payoutEarnings')::bigint)::bigint
            FROM transactions t JOIN scope s ON s.app_id = t.app_id
            CROSS JOIN LATERAL jsonb_array_elements(
                CASE WHEN jsonb_typeof(t.payload -> 'transaction' -> 'partialRefunds') = 'array'
                    THEN t.payload -> 'transaction' -> 'partialRefunds' ELSE '[]'::jsonb END) AS e(refund)
            WHERE \(inEnvironment("t.environment")) AND \(statesFees("t.source")) AND \(stated)
              AND t.revocation_date IS NULL AND jsonb_typeof(e.refund) = 'object'
              AND \(bounded("e.refund -> 'payoutEarnings'"))
              AND CASE WHEN \(bounded("e.refund -> 'date'"))
                  THEN (e.refund ->> 'date')::bigint >= \(from.millisecondsSince1970)
                      AND (e.refund ->> 'date')::bigint < \(to.millisecondsSince1970)
                  ELSE false END
            GROUP BY 1, 2, 3
            """
        ).map { row in
            PayoutGroup(
                kind: PayoutGroup.Kind(rawValue: try row.decode(Int.self, at: 0)) ?? .sale,
                day: try row.decode(Int64.self, at: 1), currency: try row.decode(String.self, at: 2),
                count: Int(try row.decode(Int64.self, at: 3)), total: try row.decode(Int64.self, at: 4),
                tax: try row.decode(Int64.self, at: 5), fee: try row.decode(Int64.self, at: 6),
                earnings: try row.decode(Int64.self, at: 7))
        }
    }
}
