import PostgresLibPQ
import SubLedgerCore

extension ReportStore {
    /// Revocations of one kind, reason and currency, with the amount Apple stated for them.
    struct RevocationCount {
        /// `revoke` or `debit`.
        var kind: String
        /// `refund` or `family_sharing_revoked` for a `revoke`.
        var reason: String?
        var currency: String?
        var count: Int
        /// The sum of the amounts given back (`refundedSQL`) in milli-units; nil when no transaction states a price.
        var amountMilli: Int64?
    }

    /// `ledger_entries` of kind `revoke` with reason `refund` or `family_sharing_revoked`, and of kind `debit`,
    /// whose `effective_at` lies in [`from`, `to`), joined to their transaction for Apple's revocation reason,
    /// price, currency and refunded percentage; newest first, at most `limit`.
    func revocations(from: Instant, to: Instant, limit: Int) throws -> [RefundsReport.Row] {
        try run(
            """
            WITH \(apps)
            SELECT e.effective_at, s.bundle_id, e.environment, e.account_id, e.product_id, e.original_transaction_id,
                   e.transaction_id, e.kind, e.reason, t.revocation_reason, e.credits, \(Self.price), \(Self.currency),
                   t.revocation_percentage, \(Self.refunded)
            \(revocationsFrom(from: from, to: to))
            ORDER BY e.effective_at DESC, e.entry_id DESC
            LIMIT \(limit)
            """
        ).map { row in
            RefundsReport.Row(
                at: try row.instant(at: 0), bundleID: try row.decode(String.self, at: 1),
                environment: try row.decode(String.self, at: 2), accountID: try row.decode(String?.self, at: 3),
                productID: try row.decode(String.self, at: 4),
                originalTransactionID: try row.decode(String.self, at: 5),
                transactionID: try row.decode(String?.self, at: 6), kind: try row.decode(String.self, at: 7),
                reason: try row.decode(String?.self, at: 8),
                revocationReasonCode: try row.decode(Int32?.self, at: 9).map(Int.init),
                credits: try row.decode(Int64?.self, at: 10), priceMilli: try row.decode(Int64?.self, at: 11),
                currency: try row.decode(String?.self, at: 12),
                revocationPercentage: try row.decode(Int32?.self, at: 13).map(Int.init),
                refundedMilli: try row.decode(Int64?.self, at: 14))
        }
    }

    /// The same entries as `revocations`, all of them counted by kind, reason and currency.
    func revocationCounts(from: Instant, to: Instant) throws -> [RevocationCount] {
        try run(
            """
            WITH \(apps)
            SELECT e.kind, e.reason, \(Self.currency), count(*), sum(\(Self.refunded))::bigint
            \(revocationsFrom(from: from, to: to))
            GROUP BY 1, 2, 3
            """
        ).map { row in
            RevocationCount(
                kind: try row.decode(String.self, at: 0), reason: try row.decode(String?.self, at: 1),
                currency: try row.decode(String?.self, at: 2), count: try row.decode(Int.self, at: 3),
                amountMilli: try row.decode(Int64?.self, at: 4))
        }
    }

    /// The refund, Family Sharing and debit entries of the scope's environment effective in [`from`, `to`), with
    /// their transaction (alias `t`). An entry's transaction is of the entry's chain: joined on the chain too, the
    /// two tables meet on their distribution column, which Citus needs to join them shard by shard.
    func revocationsFrom(from: Instant, to: Instant) -> PostgresQuery {
        """
        FROM ledger_entries e JOIN scope s ON s.app_id = e.app_id
        LEFT JOIN transactions t
               ON t.app_id = e.app_id AND t.environment = e.environment
              AND t.original_transaction_id = e.original_transaction_id AND t.transaction_id = e.transaction_id
        WHERE e.kind IN ('revoke', 'debit')
          AND (e.kind = 'debit' OR e.reason IN ('refund', 'family_sharing_revoked'))
          AND \(inEnvironment("e.environment"))
          AND e.effective_at >= \(from)::timestamptz AND e.effective_at < \(to)::timestamptz
        """
    }

    /// Apple's price and currency as the ledger keeps them (`transactions.price_milliunits`, `currency`: the
    /// latest signed statement, which a later receipt does not erase).
    static let price: PostgresQuery = "t.price_milliunits"
    static let currency: PostgresQuery = "t.currency"
    /// The part of the price given back: Apple's `revocationPercentage` of it (`refunded_milli`, schema step 28).
    static let refunded: PostgresQuery = "refunded_milli(\(price), t.revocation_percentage)"
}
