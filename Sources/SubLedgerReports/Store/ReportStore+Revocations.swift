import PostgresLibPQ
import SubLedgerCore

extension ReportStore {
    /// Revocations that share everything their amount depends on: one `RefundAmount` each.
    struct RevocationGroup {
        /// `revoke` or `debit`.
        var kind: String
        /// `refund` or `family_sharing_revoked` for a `revoke`.
        var reason: String?
        var currency: String?
        /// The transaction's amount (`transaction_amounts`); `nil`: unpriced.
        var priceMilli: Int64?
        /// The share stated for the refund in force (`nil`: the whole price, or reversed).
        var revocationPercentage: Int?
        /// Whether the revocation is still in force (`inForce`); reversed otherwise.
        var isInForce: Bool
        /// The price came from the catalog, not from the store.
        var estimated: Bool
        var count: Int
    }

    /// `ledger_entries` of kind `revoke` with reason `refund` or `family_sharing_revoked`, and of kind `debit`,
    /// whose `effective_at` lies in [`from`, `to`), with their transaction's amount, currency and the share stated
    /// for the refund in force, and the amount given back (`RefundAmount`); newest first, at most `limit`.
    func revocations(from: Instant, to: Instant, limit: Int) throws -> [RefundsReport.Row] {
        try run(
            """
            WITH \(apps)
            SELECT e.effective_at, s.bundle_id, e.environment, e.account_id, e.product_id, e.original_transaction_id,
                   e.transaction_id, e.kind, e.reason, t.revocation_reason, e.credits, a.amount_milliunits, a.currency,
                   \(Self.percentage), \(Self.inForce), coalesce(a.estimated, false)
            \(revocationsFrom(from: from, to: to))
            ORDER BY e.effective_at DESC, e.entry_id DESC
            LIMIT \(limit)
            """
        ).map { row in
            let price = try row.decode(Int64?.self, at: 11)
            let percentage = try row.decode(Int32?.self, at: 13).map(Int.init)
            let isInForce = try row.decode(Bool.self, at: 14)
            return RefundsReport.Row(
                at: try row.instant(at: 0), bundleID: try row.decode(String.self, at: 1),
                environment: try row.decode(String.self, at: 2), accountID: try row.decode(String?.self, at: 3),
                productID: try row.decode(String.self, at: 4),
                originalTransactionID: try row.decode(String.self, at: 5),
                transactionID: try row.decode(String?.self, at: 6), kind: try row.decode(String.self, at: 7),
                reason: try row.decode(String?.self, at: 8),
                revocationReasonCode: try row.decode(Int32?.self, at: 9).map(Int.init),
                credits: try row.decode(Int64?.self, at: 10), priceMilli: price,
                currency: try row.decode(String?.self, at: 12), revocationPercentage: percentage,
                refundedMilli: RefundAmount.given(price: price, percentage: percentage, isInForce: isInForce),
                reversed: !isInForce, estimated: try row.decode(Bool.self, at: 15))
        }
    }

    /// The same entries as `revocations`, all of them, grouped by kind, reason, currency and everything their
    /// amount depends on.
    func revocationGroups(from: Instant, to: Instant) throws -> [RevocationGroup] {
        try run(
            """
            WITH \(apps)
            SELECT e.kind, e.reason, a.currency, a.amount_milliunits, \(Self.percentage), \(Self.inForce),
                   coalesce(a.estimated, false), count(*)
            \(revocationsFrom(from: from, to: to))
            GROUP BY 1, 2, 3, 4, 5, 6, 7
            """
        ).map { row in
            RevocationGroup(
                kind: try row.decode(String.self, at: 0), reason: try row.decode(String?.self, at: 1),
                currency: try row.decode(String?.self, at: 2), priceMilli: try row.decode(Int64?.self, at: 3),
                revocationPercentage: try row.decode(Int32?.self, at: 4).map(Int.init),
                isInForce: try row.decode(Bool.self, at: 5), estimated: try row.decode(Bool.self, at: 6),
                count: try row.decode(Int.self, at: 7))
        }
    }

    /// The refund, Family Sharing and debit entries of the scope's environment effective in [`from`, `to`), with
    /// their transaction (alias `t`, for Apple's revocation reason) and its amount (alias `a`, `transaction_amounts`:
    /// the amount the `revenue` report counts). An entry's transaction is of the entry's chain: joined on the chain
    /// too, the tables meet on their distribution column, which Citus needs to join them shard by shard.
    func revocationsFrom(from: Instant, to: Instant) -> PostgresQuery {
        """
        FROM ledger_entries e JOIN scope s ON s.app_id = e.app_id
        LEFT JOIN transactions t
               ON t.app_id = e.app_id AND t.environment = e.environment
              AND t.original_transaction_id = e.original_transaction_id AND t.transaction_id = e.transaction_id
        LEFT JOIN transaction_amounts a
               ON a.app_id = e.app_id AND a.environment = e.environment
              AND a.original_transaction_id = e.original_transaction_id AND a.transaction_id = e.transaction_id
        WHERE e.kind IN ('revoke', 'debit')
          AND (e.kind = 'debit' OR e.reason IN ('refund', 'family_sharing_revoked'))
          AND \(inEnvironment("e.environment"))
          AND e.effective_at >= \(from)::timestamptz AND e.effective_at < \(to)::timestamptz
        """
    }

    /// The partial refunds of web sales (`Transaction.partialRefunds`: Stripe's refunds of part of a charge, which
    /// take nothing back and so are no ledger entry) made in [`from`, `to`), as rows of kind `partial_refund`, with
    /// the amount each gave back; newest first, at most `limit`.
    func partialRefunds(from: Instant, to: Instant, limit: Int) throws -> [RefundsReport.Row] {
        try run(
            """
            WITH \(apps)
            SELECT r.at, s.bundle_id, t.environment, t.account_id, t.product_id, t.original_transaction_id,
                   t.transaction_id, a.amount_milliunits, a.currency, r.amount, coalesce(a.estimated, false)
            \(partialRefundsFrom(from: from, to: to))
            ORDER BY r.at DESC, t.transaction_id DESC, r.amount DESC
            LIMIT \(limit)
            """
        ).map { row in
            RefundsReport.Row(
                at: Instant(millisecondsSince1970: try row.decode(Int64.self, at: 0)),
                bundleID: try row.decode(String.self, at: 1), environment: try row.decode(String.self, at: 2),
                accountID: try row.decode(String?.self, at: 3), productID: try row.decode(String.self, at: 4),
                originalTransactionID: try row.decode(String.self, at: 5),
                transactionID: try row.decode(String?.self, at: 6), kind: RefundsReport.partialRefundKind,
                reason: "refund", revocationReasonCode: nil, credits: nil,
                priceMilli: try row.decode(Int64?.self, at: 7), currency: try row.decode(String?.self, at: 8),
                refundedMilli: try row.decode(Int64.self, at: 9), estimated: try row.decode(Bool.self, at: 10))
        }
    }

    /// The partial refunds of `partialRefunds`, all of them, per currency: how many, and the sum given back (and the
    /// part of it priced from the catalog).
    func partialRefundTotals(from: Instant, to: Instant) throws -> [RefundsReport.CurrencyTotal] {
        try run(
            """
            WITH \(apps)
            SELECT a.currency, count(*), sum(r.amount)::bigint,
                   coalesce(sum(r.amount) FILTER (WHERE coalesce(a.estimated, false)), 0)::bigint
            \(partialRefundsFrom(from: from, to: to))
            GROUP BY 1
            """
        ).map { row in
            RefundsReport.CurrencyTotal(
                currency: try row.decode(String.self, at: 0), refunds: try row.decode(Int.self, at: 1),
                amountMilli: try row.decode(Int64.self, at: 2), estimatedMilli: try row.decode(Int64.self, at: 3))
        }
    }

    /// The partial refunds (alias `r`, `storedPartialRefunds`) of the scope's web sales (alias `t`, with its amount
    /// `a`) made in [`from`, `to`): sales not revoked since (a revocation gives the whole price back), each refund
    /// bounded by the sale's price, as the revenue report counts them (`webPartialRefundGroups`).
    func partialRefundsFrom(from: Instant, to: Instant) -> PostgresQuery {
        """
        FROM transactions t JOIN scope s ON s.app_id = t.app_id
        JOIN transaction_amounts a
               ON a.app_id = t.app_id AND a.environment = t.environment
              AND a.original_transaction_id = t.original_transaction_id AND a.transaction_id = t.transaction_id
        CROSS JOIN LATERAL \(Self.storedPartialRefunds("t")) r
        WHERE \(statesFees("t.source")) AND t.revocation_date IS NULL
          AND t.payload -> 'transaction' -> 'partialRefunds' IS NOT NULL
          AND \(inEnvironment("t.environment")) AND a.currency IS NOT NULL
          AND a.amount_milliunits > 0 AND r.amount <= a.amount_milliunits
          AND r.at >= \(from.millisecondsSince1970) AND r.at < \(to.millisecondsSince1970)
        """
    }

    /// Whether the entry's revocation is in force: it is its transaction's revocation in force
    /// (`transactions.revocation_date`, `KnownTransaction.activeRevocation`). A reversal leaves the transaction none
    /// (or another one, revoked again later), and the entry stays in the append-only ledger beside its `restore`.
    static let inForce: PostgresQuery = "coalesce(a.revocation_date = e.effective_at, false)"
    /// The share stated for the revocation in force (`transactions.revocation_percentage`), only when it is the
    /// entry's own.
    static let percentage: PostgresQuery = "CASE WHEN \(inForce) THEN a.revocation_percentage END"
}
