import PostgresLibPQ
import SubLedgerCore

extension ReportStore {
    /// `ownership_bindings` with `sequence > 0` started in [`from`, `to`), each joined with the binding it
    /// replaced (`sequence - 1`) and the chain's product; newest first, at most `limit`.
    func transfers(from: Instant, to: Instant, limit: Int) throws -> [TransfersReport.Row] {
        try run(
            """
            WITH \(apps)
            SELECT b.started_at, s.bundle_id, b.environment, b.original_transaction_id, c.product_id, b.sequence,
                   coalesce(b.from_account_id, p.account_id), b.account_id, b.started_reason, p.started_at, b.transaction_id
            FROM ownership_bindings b JOIN scope s ON s.app_id = b.app_id
            LEFT JOIN ownership_bindings p
                   ON p.app_id = b.app_id AND p.environment = b.environment
                  AND p.original_transaction_id = b.original_transaction_id AND p.sequence = b.sequence - 1
            LEFT JOIN chains c
                   ON c.app_id = b.app_id AND c.environment = b.environment
                  AND c.original_transaction_id = b.original_transaction_id
            WHERE \(transferred(from: from, to: to))
            ORDER BY b.started_at DESC, b.binding_id DESC
            LIMIT \(limit)
            """
        ).map { row in
            TransfersReport.Row(
                at: try row.instant(at: 0), bundleID: try row.decode(String.self, at: 1),
                environment: try row.decode(String.self, at: 2),
                originalTransactionID: try row.decode(String.self, at: 3),
                productID: try row.decode(String?.self, at: 4), sequence: Int(try row.decode(Int32.self, at: 5)),
                fromAccountID: try row.decode(String?.self, at: 6), toAccountID: try row.decode(String.self, at: 7),
                reason: try row.decode(String.self, at: 8), previousOwnerSince: try row.optionalInstant(at: 9),
                transactionID: try row.decode(String?.self, at: 10))
        }
    }

    /// The same bindings as `transfers`, all of them counted by reason.
    func transferCounts(from: Instant, to: Instant) throws -> [TransfersReport.ReasonCount] {
        try run(
            """
            WITH \(apps)
            SELECT b.started_reason, count(*)
            FROM ownership_bindings b JOIN scope s ON s.app_id = b.app_id
            WHERE \(transferred(from: from, to: to))
            GROUP BY 1 ORDER BY 1
            """
        ).map { row in
            TransfersReport.ReasonCount(
                reason: try row.decode(String.self, at: 0), transfers: try row.decode(Int.self, at: 1))
        }
    }

    /// The bindings (alias `b`) of the scope's environment that moved a chain, started in [`from`, `to`).
    func transferred(from: Instant, to: Instant) -> PostgresQuery {
        """
        b.sequence > 0 AND \(inEnvironment("b.environment"))
          AND b.started_at >= \(from)::timestamptz AND b.started_at < \(to)::timestamptz
        """
    }
}
