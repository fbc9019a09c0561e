import PostgresLibPQ

extension ReportStore {
    /// `transactions` with `account_id IS NULL`, newest purchase first, at most `limit`.
    func unclaimedTransactions(limit: Int) throws -> [UnclaimedReport.Row] {
        try run(
            """
            WITH \(apps)
            SELECT s.bundle_id, t.environment, t.transaction_id, t.original_transaction_id, t.product_id, t.purchase_date,
                   t.expires_date, t.source
            FROM transactions t JOIN scope s ON s.app_id = t.app_id
            WHERE t.account_id IS NULL AND \(inEnvironment("t.environment"))
            ORDER BY t.purchase_date DESC, t.transaction_id DESC
            LIMIT \(limit)
            """
        ).map { row in
            UnclaimedReport.Row(
                bundleID: try row.decode(String.self, at: 0), environment: try row.decode(String.self, at: 1),
                transactionID: try row.decode(String.self, at: 2),
                originalTransactionID: try row.decode(String.self, at: 3),
                productID: try row.decode(String.self, at: 4), purchaseDate: try row.instant(at: 5),
                expiresDate: try row.optionalInstant(at: 6), source: try row.decode(String.self, at: 7))
        }
    }

    /// The unclaimed transactions counted per app and environment.
    func unclaimedCounts() throws -> [UnclaimedReport.EnvironmentCount] {
        try run(
            """
            WITH \(apps)
            SELECT s.bundle_id, t.environment, count(*)
            FROM transactions t JOIN scope s ON s.app_id = t.app_id
            WHERE t.account_id IS NULL AND \(inEnvironment("t.environment"))
            GROUP BY 1, 2 ORDER BY 1, 2
            """
        ).map { row in
            UnclaimedReport.EnvironmentCount(
                bundleID: try row.decode(String.self, at: 0), environment: try row.decode(String.self, at: 1),
                transactions: try row.decode(Int.self, at: 2))
        }
    }
}
