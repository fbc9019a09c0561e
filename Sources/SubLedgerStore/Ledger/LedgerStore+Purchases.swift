import PostgresLibPQ
import SubLedgerCore

extension LedgerStore {
    /// The chains holding a transaction attributed to `account`, fully loaded, in key order: what the account's
    /// transaction list reads. Not the chains it owns or has owned: a merge attributes the merged account's purchases
    /// to the account it is merged into, on whichever chain they are, one that changed hands before included
    /// (docs/guides/accounts.md, "Merging accounts"). On Citus the keys are a multi-shard read (by the transactions'
    /// account index), each chain then read on its own shard.
    public func chains(purchasedBy account: AccountID, app: StoredApp) async throws -> [ChainSnapshot] {
        try await pool.withConnection { connection in
            let keys = try connection.query(
                """
                SELECT DISTINCT environment, original_transaction_id FROM transactions
                WHERE app_id = \(app.appID) AND account_id = \(account.rawValue)
                """
            ).map { row in
                ChainKey(
                    environment: try .stored(row.decode(String.self, at: 0)),
                    chainID: try row.decode(String.self, at: 1))
            }
            return try ChainRows.load(keys.sorted(), appID: app.appID, forUpdate: false, on: connection)
        }
    }
}
