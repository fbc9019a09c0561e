import PostgresLibPQ
import SubLedgerCore

@testable import SubLedgerStore

extension LedgerStore {
    /// The owner of production chain `id`, read from the chain row's column (not the core's snapshot).
    func ownerColumn(of id: String, app: StoredApp) async throws -> String? {
        try await pool.query(
            """
            SELECT owner_account_id FROM chains WHERE app_id = \(app.appID) AND environment = 'Production' AND
                original_transaction_id = \(id)
            """
        ).first?.decode(String?.self, at: 0)
    }

    /// Idempotency key → account of every ledger entry of the app.
    func entryAccounts(app: StoredApp) async throws -> [String: String] {
        var result: [String: String] = [:]
        for row in try await pool.query(
            "SELECT idempotency_key, account_id FROM ledger_entries WHERE app_id = \(app.appID)")
        {
            result[try row.decode(String.self, at: 0)] = try row.decode(String.self, at: 1)
        }
        return result
    }
}
