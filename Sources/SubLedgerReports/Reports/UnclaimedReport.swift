import Foundation
import PostgresLibPQ

/// Transactions the ledger holds for no account yet (no owner, no known submitter).
public struct UnclaimedReport: Sendable, Hashable, Codable {
    public struct Row: Sendable, Hashable, Codable {
        public var bundleID: String
        public var environment: String
        public var transactionID: String
        public var originalTransactionID: String
        public var productID: String
        public var purchaseDate: Date
        public var expiresDate: Date?
        /// Where the transaction came from (`verify_receipt`, `notification_v2`, ...).
        public var source: String
    }

    public struct EnvironmentCount: Sendable, Hashable, Codable {
        public var bundleID: String
        public var environment: String
        public var transactions: Int
    }

    /// The newest `limit` unclaimed transactions.
    public var rows: [Row]
    public var totals: [EnvironmentCount]
    public var truncated: Bool
}

extension Reports {
    /// `transactions` with `account_id IS NULL`, newest purchase first (at most `limit` rows), and their
    /// count per app and environment.
    public static func unclaimed(on connection: PostgresConnection, scope: ReportScope, limit: Int) throws
        -> UnclaimedReport
    {
        try scope.validate(on: connection)
        let rows = try connection.query(unclaimedRowsSQL, scope.parameters + [limit] as [any PostgresEncodable]).map { row in
            UnclaimedReport.Row(
                bundleID: try row.decode(String.self, at: 0), environment: try row.decode(String.self, at: 1),
                transactionID: try row.decode(String.self, at: 2), originalTransactionID: try row.decode(String.self, at: 3),
                productID: try row.decode(String.self, at: 4), purchaseDate: try row.decode(Date.self, at: 5),
                expiresDate: try row.decode(Date?.self, at: 6), source: try row.decode(String.self, at: 7))
        }
        let totals = try connection.query(unclaimedTotalsSQL, scope.parameters).map { row in
            UnclaimedReport.EnvironmentCount(
                bundleID: try row.decode(String.self, at: 0), environment: try row.decode(String.self, at: 1),
                transactions: try row.decode(Int.self, at: 2))
        }
        return UnclaimedReport(
            rows: rows, totals: totals, truncated: totals.reduce(0) { $0 + $1.transactions } > rows.count)
    }

    static let unclaimedRowsSQL = """
        WITH \(ReportScope.appsCTE)
        SELECT s.bundle_id, t.environment, t.transaction_id, t.original_transaction_id, t.product_id, t.purchase_date,
               t.expires_date, t.source
        FROM transactions t JOIN scope s ON s.app_id = t.app_id
        WHERE t.account_id IS NULL AND \(ReportScope.environmentCondition("t.environment"))
        ORDER BY t.purchase_date DESC, t.transaction_id DESC
        LIMIT $3
        """

    static let unclaimedTotalsSQL = """
        WITH \(ReportScope.appsCTE)
        SELECT s.bundle_id, t.environment, count(*)
        FROM transactions t JOIN scope s ON s.app_id = t.app_id
        WHERE t.account_id IS NULL AND \(ReportScope.environmentCondition("t.environment"))
        GROUP BY 1, 2 ORDER BY 1, 2
        """
}
