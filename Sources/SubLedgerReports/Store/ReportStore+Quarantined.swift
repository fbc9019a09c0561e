import PostgresLibPQ

extension ReportStore {
    /// Receipts and notifications with status `quarantined`, newest first, at most `limit`. The environment
    /// filter keeps only inputs whose environment is known.
    func quarantinedInputs(limit: Int) throws -> [QuarantinedReport.Row] {
        try run(
            """
            \(quarantinedInputsCTE)
            SELECT input, id, bundle_id, kind, environment, account_id, attempts, last_error, received_at
            FROM inputs ORDER BY received_at DESC, id DESC LIMIT \(limit)
            """
        ).map { row in
            QuarantinedReport.Row(
                input: try row.decode(String.self, at: 0), id: try row.decode(Int64.self, at: 1),
                bundleID: try row.decode(String.self, at: 2), kind: try row.decode(String.self, at: 3),
                environment: try row.decode(String?.self, at: 4), accountID: try row.decode(String?.self, at: 5),
                attempts: Int(try row.decode(Int32.self, at: 6)), lastError: try row.decode(String?.self, at: 7),
                receivedAt: try row.instant(at: 8))
        }
    }

    /// The quarantined inputs counted per app and input (`receipt` or `notification`).
    func quarantinedCounts() throws -> [QuarantinedReport.Count] {
        try run(
            """
            \(quarantinedInputsCTE)
            SELECT bundle_id, input, count(*) FROM inputs GROUP BY 1, 2 ORDER BY 1, 2
            """
        ).map { row in
            QuarantinedReport.Count(
                bundleID: try row.decode(String.self, at: 0), input: try row.decode(String.self, at: 1),
                count: try row.decode(Int.self, at: 2))
        }
    }

    /// The scope's quarantined receipts and notifications, as the CTE `inputs`.
    var quarantinedInputsCTE: PostgresQuery {
        """
        WITH \(apps),
        inputs AS (
            SELECT 'receipt' AS input, r.receipt_id AS id, s.bundle_id, r.kind, r.environment, r.account_id, r.attempts,
                   r.last_error, r.received_at
            FROM receipts r JOIN scope s ON s.app_id = r.app_id
            WHERE r.status = 'quarantined' AND \(inEnvironment("r.environment"))
            UNION ALL
            SELECT 'notification', n.notification_row_id, s.bundle_id, n.version, n.environment, NULL, n.attempts,
                   n.last_error, n.received_at
            FROM notifications n JOIN scope s ON s.app_id = n.app_id
            WHERE n.status = 'quarantined' AND \(inEnvironment("n.environment"))
        )
        """
    }
}
