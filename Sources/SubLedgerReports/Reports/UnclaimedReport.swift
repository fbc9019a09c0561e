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
        let store = try ReportStore(on: connection, scope: scope)
        let rows = try store.unclaimedTransactions(limit: limit)
        let totals = try store.unclaimedCounts()
        return UnclaimedReport(
            rows: rows, totals: totals, truncated: totals.reduce(0) { $0 + $1.transactions } > rows.count)
    }
}
