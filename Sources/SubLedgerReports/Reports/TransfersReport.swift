import Foundation
import PostgresLibPQ

/// Ownership changes of chains between accounts.
public struct TransfersReport: Sendable, Hashable, Codable {
    public struct Row: Sendable, Hashable, Codable {
        /// When the chain moved (the new binding's `started_at`).
        public var at: Date
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
        public var previousOwnerSince: Date?
        /// The transaction whose arrival moved the chain.
        public var transactionID: String?
    }

    public struct ReasonCount: Sendable, Hashable, Codable {
        public var reason: String
        public var transfers: Int
    }

    public var from: Date
    public var to: Date
    /// The latest `limit` transfers of the range, newest first.
    public var rows: [Row]
    public var totals: [ReasonCount]
    public var truncated: Bool
}

extension Reports {
    /// `ownership_bindings` with `sequence > 0` started in [`from`, `to`), each joined with the binding
    /// it replaced (`sequence - 1`) and the chain's product. Newest first, at most `limit` rows.
    public static func transfers(
        on connection: PostgresConnection, scope: ReportScope, from: Date, to: Date, limit: Int
    ) throws -> TransfersReport {
        guard from < to else { throw ReportError.invalidArgument("--from must be before --to") }
        let store = try ReportStore(on: connection, scope: scope)
        let rows = try store.transfers(from: from, to: to, limit: limit)
        let totals = try store.transferCounts(from: from, to: to)
        return TransfersReport(
            from: from, to: to, rows: rows, totals: totals,
            truncated: totals.reduce(0) { $0 + $1.transfers } > rows.count)
    }
}
