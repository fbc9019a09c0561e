import PostgresLibPQ
import SubLedgerCore

/// The reads behind customer support lookups (`subledger support`, `/v1/admin/lookup/...`): which chains an
/// id names, and whether an account is known. The chains themselves are then loaded with
/// `LedgerStore.chain(_:app:)`, the same read the ledger uses.
public struct SupportStore: Sendable {
    public let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// The chains of `app` that hold `id` as a transaction id or as an original transaction id, in any
    /// environment, sorted.
    public func chainKeys(transactionID id: String, app: StoredApp) async throws -> [ChainKey] {
        try await pool.withConnection { connection in
            try Self.chainKeys(
                from: connection.query(
                    Self.chainKeysByTransactionIDStatement, [app.appID, id, AppStoreEnvironment.allAsParameter]))
        }
    }

    /// The chains of `app` holding a transaction whose `appAccountToken` is `token`, sorted.
    public func chainKeys(appAccountToken token: OrderID, app: StoredApp) async throws -> [ChainKey] {
        try await pool.withConnection { connection in
            try Self.chainKeys(from: connection.query(Self.chainKeysByTokenStatement, [app.appID, token.rawValue]))
        }
    }

    /// The chains of `app` holding a transaction of the app transaction `id`, in any environment, sorted.
    public func chainKeys(appTransactionID id: String, app: StoredApp) async throws -> [ChainKey] {
        try await pool.withConnection { connection in
            try Self.chainKeys(from: connection.query(Self.chainKeysByAppTransactionIDStatement, [app.appID, id]))
        }
    }

    /// Whether `account` is known to `app` (it submitted, ordered or owned something).
    public func accountExists(_ account: AccountID, app: StoredApp) async throws -> Bool {
        try await pool.withConnection { connection in
            try !connection.query(Self.accountExistsStatement, [app.appID, account.rawValue]).isEmpty
        }
    }

    static func chainKeys(from rows: PostgresRows) throws -> [ChainKey] {
        try rows.map { row in
            let rawEnvironment = try row.decode(String.self, at: 0)
            guard let environment = AppStoreEnvironment(rawValue: rawEnvironment) else {
                throw StoreError(code: .corruptRow, message: "unknown environment '\(rawEnvironment)' in a chain row")
            }
            return ChainKey(environment: environment, originalTransactionID: try row.decode(String.self, at: 1))
        }.sorted()
    }

    static let chainKeysByTransactionIDStatement = """
        SELECT environment, original_transaction_id FROM transactions
        WHERE app_id = $1 AND environment = ANY (string_to_array($3::text, ',')) AND transaction_id = $2
        UNION
        SELECT environment, original_transaction_id FROM chains
        WHERE app_id = $1 AND environment = ANY (string_to_array($3::text, ',')) AND original_transaction_id = $2
        """

    // Tokens are stored as Apple sent them; Apple may upper-case a UUID, so the comparison ignores case
    // (`index_transactions_on_app_id_and_lower_app_account_token`).
    static let chainKeysByTokenStatement = """
        SELECT DISTINCT environment, original_transaction_id FROM transactions
        WHERE app_id = $1 AND lower(app_account_token) = $2
        """

    static let chainKeysByAppTransactionIDStatement = """
        SELECT DISTINCT environment, original_transaction_id FROM transactions
        WHERE app_id = $1 AND app_transaction_id = $2
        """

    static let accountExistsStatement = "SELECT 1 FROM accounts WHERE app_id = $1 AND account_id = $2"
}
