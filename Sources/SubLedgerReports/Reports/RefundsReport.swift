import Foundation
import PostgresLibPQ

/// Refunds and Family Sharing revocations, with the amount Apple stated where it is known.
public struct RefundsReport: Sendable, Hashable, Codable {
    public struct Row: Sendable, Hashable, Codable {
        /// The revocation date (the ledger entry's `effective_at`).
        public var at: Date
        public var bundleID: String
        public var environment: String
        public var accountID: String?
        public var productID: String
        public var originalTransactionID: String
        public var transactionID: String?
        /// `revoke` (subscriptions and one-time purchases) or `debit` (consumable credits taken back).
        public var kind: String
        /// `refund` or `family_sharing_revoked`.
        public var reason: String?
        /// Apple's raw `revocationReason` (0 other, 1 a problem in the app), when stored.
        public var revocationReasonCode: Int?
        /// Credits taken back, for a `debit`.
        public var credits: Int64?
        /// The transaction's price in milli-units of `currency` (StoreKit 2 only).
        public var priceMilli: Int64?
        public var currency: String?
    }

    public struct CurrencyTotal: Sendable, Hashable, Codable {
        public var currency: String
        public var refunds: Int
        public var amountMilli: Int64
    }

    public struct Totals: Sendable, Hashable, Codable {
        public var refunds: Int
        public var familySharingRevocations: Int
        public var debits: Int
        /// Revocations whose price is unknown (legacy receipts state none).
        public var withoutAmount: Int
        public var amounts: [CurrencyTotal]
    }

    public var from: Date
    public var to: Date
    /// The latest `limit` revocations of the range, newest first.
    public var rows: [Row]
    public var totals: Totals
    public var truncated: Bool
}

extension Reports {
    /// `ledger_entries` of kind `revoke` with reason `refund` or `family_sharing_revoked`, and of kind
    /// `debit`, whose `effective_at` lies in [`from`, `to`), joined to their transaction for Apple's
    /// revocation reason, price and currency. Newest first, at most `limit` rows; totals cover the range.
    public static func refunds(
        on connection: PostgresConnection, scope: ReportScope, from: Date, to: Date, limit: Int
    ) throws -> RefundsReport {
        guard from < to else { throw ReportError.invalidArgument("--from must be before --to") }
        try scope.validate(on: connection)
        let parameters = scope.parameters + [from, to] as [any PostgresEncodable]
        let rows = try connection.query(refundRowsSQL, parameters + [limit] as [any PostgresEncodable]).map { row in
            RefundsReport.Row(
                at: try row.decode(Date.self, at: 0), bundleID: try row.decode(String.self, at: 1),
                environment: try row.decode(String.self, at: 2), accountID: try row.decode(String?.self, at: 3),
                productID: try row.decode(String.self, at: 4), originalTransactionID: try row.decode(String.self, at: 5),
                transactionID: try row.decode(String?.self, at: 6), kind: try row.decode(String.self, at: 7),
                reason: try row.decode(String?.self, at: 8), revocationReasonCode: try row.decode(Int32?.self, at: 9).map(Int.init),
                credits: try row.decode(Int64?.self, at: 10), priceMilli: try row.decode(Int64?.self, at: 11),
                currency: try row.decode(String?.self, at: 12))
        }
        var totals = RefundsReport.Totals(refunds: 0, familySharingRevocations: 0, debits: 0, withoutAmount: 0, amounts: [])
        for row in try connection.query(refundTotalsSQL, parameters) {
            let kind = try row.decode(String.self, at: 0)
            let reason = try row.decode(String?.self, at: 1)
            let currency = try row.decode(String?.self, at: 2)
            let count = try row.decode(Int.self, at: 3)
            let amount = try row.decode(Int64?.self, at: 4)
            if kind == "debit" {
                totals.debits += count
            } else if reason == "family_sharing_revoked" {
                totals.familySharingRevocations += count
            } else {
                totals.refunds += count
            }
            if let currency, let amount {
                if let index = totals.amounts.firstIndex(where: { $0.currency == currency }) {
                    totals.amounts[index].refunds += count
                    totals.amounts[index].amountMilli += amount
                } else {
                    totals.amounts.append(.init(currency: currency, refunds: count, amountMilli: amount))
                }
            } else {
                totals.withoutAmount += count
            }
        }
        totals.amounts.sort { $0.currency < $1.currency }
        let count = totals.refunds + totals.familySharingRevocations + totals.debits
        return RefundsReport(from: from, to: to, rows: rows, totals: totals, truncated: count > rows.count)
    }

    static let refundsFrom = """
        FROM ledger_entries e JOIN scope s ON s.app_id = e.app_id
        LEFT JOIN transactions t
               ON t.app_id = e.app_id AND t.environment = e.environment AND t.transaction_id = e.transaction_id
        WHERE e.kind IN ('revoke', 'debit')
          AND (e.kind = 'debit' OR e.reason IN ('refund', 'family_sharing_revoked'))
          AND \(ReportScope.environmentCondition("e.environment"))
          AND e.effective_at >= $3::timestamptz AND e.effective_at < $4::timestamptz
        """

    static let priceSQL = "(t.payload -> 'transaction' ->> 'price')::bigint"
    static let currencySQL = "(t.payload -> 'transaction' ->> 'currency')"

    static let refundRowsSQL = """
        WITH \(ReportScope.appsCTE)
        SELECT e.effective_at, s.bundle_id, e.environment, e.account_id, e.product_id, e.original_transaction_id,
               e.transaction_id, e.kind, e.reason, t.revocation_reason, e.credits, \(priceSQL), \(currencySQL)
        \(refundsFrom)
        ORDER BY e.effective_at DESC, e.entry_id DESC
        LIMIT $5
        """

    static let refundTotalsSQL = """
        WITH \(ReportScope.appsCTE)
        SELECT e.kind, e.reason, \(currencySQL), count(*), sum(\(priceSQL))::bigint
        \(refundsFrom)
        GROUP BY 1, 2, 3
        """
}
