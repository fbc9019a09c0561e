import PostgresLibPQ
import SubLedgerCore

/// Ownership changes of chains between accounts.
public struct TransfersReport: Sendable, Hashable, Codable {
    public struct Row: Sendable, Hashable, Codable {
        /// When the chain moved (the new binding's `started_at`).
        public var at: Instant
        public var bundleID: String
        public var environment: String
        public var originalTransactionID: String
        public var productID: String?
        /// The binding's number on the chain (1 for the first transfer).
        public var sequence: Int
        public var fromAccountID: String?
        public var toAccountID: String
        /// Why it moved (`owner_not_actively_auto_renewing`, `latest_submitter_takes`).
        public var reason: String
        /// Since when the previous owner held the chain.
        public var previousOwnerSince: Instant?
        /// The transaction whose arrival moved the chain.
        public var transactionID: String?
    }

    public struct ReasonCount: Sendable, Hashable, Codable {
        public var reason: String
        public var transfers: Int
    }

    public var from: Instant
    public var to: Instant
    /// The latest `limit` transfers of the range, newest first.
    public var rows: [Row]
    /// Every transfer of the range, counted by reason.
    public var totals: [ReasonCount]
    /// Whether the range holds more transfers than `rows`.
    public var truncated: Bool
}

extension Reports {
    /// `ownership_bindings` with `sequence > 0` started in [`from`, `to`), each joined with the binding
    /// it replaced (`sequence - 1`) and the chain's product. Newest first, at most `limit` rows.
    public static func transfers(
        on connection: PostgresConnection, scope: ReportScope, from: Instant, to: Instant, limit: Int
    ) throws -> TransfersReport {
        try ReportError.checkRange(from: from, to: to)
        let listing = try ReportListing(
            on: connection, scope: scope, rows: { try $0.transfers(from: from, to: to, limit: limit) },
            totals: { try $0.transferCounts(from: from, to: to) }, count: \.transfers)
        return TransfersReport(
            from: from, to: to, rows: listing.rows, totals: listing.totals, truncated: listing.truncated)
    }
}
