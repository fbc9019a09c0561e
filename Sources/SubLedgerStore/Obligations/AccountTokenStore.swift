import PostgresLibPQ
import SubLedgerCore

/// The app account tokens SubLedger gives accounts (`account_tokens`, schema step 30), made when an account's
/// token is first written back to Apple; the ledger resolves a payload carrying one to its account.
public struct AccountTokenStore: Sendable {
    public let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// The app account token that names `account` at Apple: its id when that is a UUID (lower-cased), otherwise
    /// the token SubLedger gave it, made now if it has none (`account_tokens`; the ledger resolves it to the account).
    public func token(for account: AccountID, appID: Int64) async throws -> String {
        if UUIDFormat.isUUID(account.rawValue) { return account.rawValue.lowercased() }
        return try await pool.transaction { connection in
            // One token per account: two senders making one at once take turns.
            try connection.query(
                """
                SELECT pg_advisory_xact_lock(hashtextextended('account-token/' || \(appID)::bigint::text || '/' ||
                    \(account.rawValue), 0))
                """)
            try connection.query(
                """
                INSERT INTO account_tokens (app_id, token, account_id)
                SELECT \(appID), gen_random_uuid(), \(account.rawValue)
                WHERE NOT EXISTS (SELECT 1 FROM account_tokens WHERE app_id = \(appID) AND account_id =
                    \(account.rawValue))
                """)
            return try connection.query(
                """
                SELECT token::text FROM account_tokens WHERE app_id = \(appID) AND account_id = \(account.rawValue)
                    ORDER BY created_at LIMIT 1
                """
            ).single().decode(String.self, at: 0)
        }
    }
}
