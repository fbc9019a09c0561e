import PostgresLibPQ
import SubLedgerCore

/// Stored inputs SubLedger gave up on: receipts, signed transactions and notifications that failed to be
/// verified or applied on every attempt (see `StoredInputRetry`), with their last error. Nothing in them
/// was credited; once the cause is fixed, setting such a row's status back to `retry` makes the renewal job
/// try it again.
public struct QuarantinedReport: Sendable, Hashable, Codable {
    public struct Row: Sendable, Hashable, Codable {
        /// `receipt` (app receipts and signed transactions) or `notification`.
        public var input: String
        /// The row id in `receipts` or `notifications`.
        public var id: Int64
        public var bundleID: String
        /// `app_receipt`, `signed_transaction`, or the notification's version (`v1`, `v2`).
        public var kind: String
        /// Known when the input was applied in an environment before; usually `nil`.
        public var environment: String?
        public var accountID: String?
        public var attempts: Int
        public var lastError: String?
        public var receivedAt: Instant
    }

    public struct Count: Sendable, Hashable, Codable {
        public var bundleID: String
        public var input: String
        public var count: Int
    }

    /// The newest `limit` quarantined inputs.
    public var rows: [Row]
    /// Every quarantined input counted, per app and input.
    public var totals: [Count]
    /// Whether more inputs are quarantined than `rows` holds.
    public var truncated: Bool
}

extension Reports {
    /// Quarantined receipts and notifications, newest first (at most `limit` rows), and their count per app
    /// and input. The environment filter keeps only inputs whose environment is known.
    public static func quarantined(on connection: PostgresConnection, scope: ReportScope, limit: Int) throws
        -> QuarantinedReport
    {
        let listing = try ReportListing(
            on: connection, scope: scope, rows: { try $0.quarantinedInputs(limit: limit) },
            totals: { try $0.quarantinedCounts() }, count: \.count)
        return QuarantinedReport(rows: listing.rows, totals: listing.totals, truncated: listing.truncated)
    }
}
