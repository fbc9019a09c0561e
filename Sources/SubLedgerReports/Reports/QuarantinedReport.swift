import Foundation
import PostgresLibPQ

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
        public var receivedAt: Date
    }

    public struct Count: Sendable, Hashable, Codable {
        public var bundleID: String
        public var input: String
        public var count: Int
    }

    /// The newest `limit` quarantined inputs.
    public var rows: [Row]
    public var totals: [Count]
    public var truncated: Bool
}

extension Reports {
    /// Quarantined receipts and notifications, newest first (at most `limit` rows), and their count per app
    /// and input. The environment filter keeps only inputs whose environment is known.
    public static func quarantined(on connection: PostgresConnection, scope: ReportScope, limit: Int) throws
        -> QuarantinedReport
    {
        try scope.validate(on: connection)
        let rows = try connection.query(quarantinedRowsSQL, scope.parameters + [limit] as [any PostgresEncodable]).map { row in
            QuarantinedReport.Row(
                input: try row.decode(String.self, at: 0), id: try row.decode(Int64.self, at: 1),
                bundleID: try row.decode(String.self, at: 2), kind: try row.decode(String.self, at: 3),
                environment: try row.decode(String?.self, at: 4), accountID: try row.decode(String?.self, at: 5),
                attempts: Int(try row.decode(Int32.self, at: 6)), lastError: try row.decode(String?.self, at: 7),
                receivedAt: try row.decode(Date.self, at: 8))
        }
        let totals = try connection.query(quarantinedTotalsSQL, scope.parameters).map { row in
            QuarantinedReport.Count(
                bundleID: try row.decode(String.self, at: 0), input: try row.decode(String.self, at: 1),
                count: try row.decode(Int.self, at: 2))
        }
        return QuarantinedReport(rows: rows, totals: totals, truncated: totals.reduce(0) { $0 + $1.count } > rows.count)
    }

    static let quarantinedInputsCTE = """
        WITH \(ReportScope.appsCTE),
        inputs AS (
            SELECT 'receipt' AS input, r.receipt_id AS id, s.bundle_id, r.kind, r.environment, r.account_id, r.attempts,
                   r.last_error, r.received_at
            FROM receipts r JOIN scope s ON s.app_id = r.app_id
            WHERE r.status = 'quarantined' AND \(ReportScope.environmentCondition("r.environment"))
            UNION ALL
            SELECT 'notification', n.notification_row_id, s.bundle_id, n.version, n.environment, NULL, n.attempts,
                   n.last_error, n.received_at
            FROM notifications n JOIN scope s ON s.app_id = n.app_id
            WHERE n.status = 'quarantined' AND \(ReportScope.environmentCondition("n.environment"))
        )
        """

    static let quarantinedRowsSQL = """
        \(quarantinedInputsCTE)
        SELECT input, id, bundle_id, kind, environment, account_id, attempts, last_error, received_at
        FROM inputs ORDER BY received_at DESC, id DESC LIMIT $3
        """

    static let quarantinedTotalsSQL = """
        \(quarantinedInputsCTE)
        SELECT bundle_id, input, count(*) FROM inputs GROUP BY 1, 2 ORDER BY 1, 2
        """
}

extension QuarantinedReport {
    public var table: ReportTable {
        ReportTable(
            title: "Quarantined stored inputs (gave up after every attempt failed)",
            columns: ["received_at", "input", "id", "app", "kind", "environment", "account", "attempts", "last_error"],
            rows: rows.map {
                [
                    ReportFormat.timestamp($0.receivedAt), $0.input, String($0.id), $0.bundleID, $0.kind,
                    $0.environment ?? "", $0.accountID ?? "", String($0.attempts), $0.lastError ?? "",
                ]
            },
            notes: totals.map { "\($0.bundleID) \($0.input)s: \($0.count)" } + (truncated ? ["(more rows than shown)"] : []))
    }
}
