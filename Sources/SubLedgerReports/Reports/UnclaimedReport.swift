import PostgresLibPQ
import SubLedgerCore

/// Transactions the ledger holds for no account yet (no owner, no known submitter).
public struct UnclaimedReport: Sendable, Hashable, Codable {
    public struct Row: Sendable, Hashable, Codable {
        public var bundleID: String
        public var environment: String
        public var transactionID: String
        public var originalTransactionID: String
        public var productID: String
        public var purchaseDate: Instant
        public var expiresDate: Instant?
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
    /// Every unclaimed transaction counted, per app and environment.
    public var totals: [EnvironmentCount]
    /// Whether more transactions are unclaimed than `rows` holds.
    public var truncated: Bool
}

extension Reports {
    /// `transactions` with `account_id IS NULL`, newest purchase first (at most `limit` rows), and their
    /// count per app and environment.
    public static func unclaimed(on connection: PostgresConnection, scope: ReportScope, limit: Int) throws
        -> UnclaimedReport
    {
        let listing = try ReportListing(
            on: connection, scope: scope, rows: { try $0.unclaimedTransactions(limit: limit) },
            totals: { try $0.unclaimedCounts() }, count: \.transactions)
        return UnclaimedReport(rows: listing.rows, totals: listing.totals, truncated: listing.truncated)
    }
}
