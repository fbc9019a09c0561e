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
        try scope.validate(on: connection)
        let parameters = scope.parameters + [from, to] as [any PostgresEncodable]
        let rows = try connection.query(transferRowsSQL, parameters + [limit] as [any PostgresEncodable]).map { row in
            TransfersReport.Row(
                at: try row.decode(Date.self, at: 0), bundleID: try row.decode(String.self, at: 1),
                environment: try row.decode(String.self, at: 2), originalTransactionID: try row.decode(String.self, at: 3),
                productID: try row.decode(String?.self, at: 4), sequence: Int(try row.decode(Int32.self, at: 5)),
                fromAccountID: try row.decode(String?.self, at: 6), toAccountID: try row.decode(String.self, at: 7),
                reason: try row.decode(String.self, at: 8), previousOwnerSince: try row.decode(Date?.self, at: 9),
                transactionID: try row.decode(String?.self, at: 10))
        }
        let totals = try connection.query(transferTotalsSQL, parameters).map { row in
            TransfersReport.ReasonCount(reason: try row.decode(String.self, at: 0), transfers: try row.decode(Int.self, at: 1))
        }
        return TransfersReport(
            from: from, to: to, rows: rows, totals: totals,
            truncated: totals.reduce(0) { $0 + $1.transfers } > rows.count)
    }

    static let transfersCondition = """
        b.sequence > 0 AND \(ReportScope.environmentCondition("b.environment"))
          AND b.started_at >= $3::timestamptz AND b.started_at < $4::timestamptz
        """

    static let transferRowsSQL = """
        WITH \(ReportScope.appsCTE)
        SELECT b.started_at, s.bundle_id, b.environment, b.original_transaction_id, c.product_id, b.sequence,
               coalesce(b.from_account_id, p.account_id), b.account_id, b.started_reason, p.started_at, b.transaction_id
        FROM ownership_bindings b JOIN scope s ON s.app_id = b.app_id
        LEFT JOIN ownership_bindings p
               ON p.app_id = b.app_id AND p.environment = b.environment
              AND p.original_transaction_id = b.original_transaction_id AND p.sequence = b.sequence - 1
        LEFT JOIN chains c
               ON c.app_id = b.app_id AND c.environment = b.environment
              AND c.original_transaction_id = b.original_transaction_id
        WHERE \(transfersCondition)
        ORDER BY b.started_at DESC, b.binding_id DESC
        LIMIT $5
        """

    static let transferTotalsSQL = """
        WITH \(ReportScope.appsCTE)
        SELECT b.started_reason, count(*)
        FROM ownership_bindings b JOIN scope s ON s.app_id = b.app_id
        WHERE \(transfersCondition)
        GROUP BY 1 ORDER BY 1
        """
}
