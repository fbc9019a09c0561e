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

    /// The chains of `app` holding a transaction `id`, or whose chain id is `id`, sorted; with `source`, only the
    /// chains whose transactions came from it (Stripe's `sub_…` and Paddle's `sub_…` look alike).
    public func chainKeys(transactionID id: String, source: TransactionSource? = nil, app: StoredApp) async throws
        -> [ChainKey]
    {
        let environments = StoreEnvironment.allAsParameter
        return try await pool.withConnection { connection in
            guard let source else {
                return try Self.chainKeys(
                    from: connection.query(
                        """
                        SELECT environment, original_transaction_id FROM transactions
                        WHERE app_id = \(app.appID) AND environment = ANY (string_to_array(\(environments)::text, ','))
                          AND transaction_id = \(id)
                        UNION
                        SELECT environment, original_transaction_id FROM chains
                        WHERE app_id = \(app.appID) AND environment = ANY (string_to_array(\(environments)::text, ','))
                          AND original_transaction_id = \(id)
                        """))
            }
            return try Self.chainKeys(
                from: connection.query(
                    """
                    SELECT environment, original_transaction_id FROM transactions
                    WHERE app_id = \(app.appID) AND environment = ANY (string_to_array(\(environments)::text, ','))
                      AND transaction_id = \(id) AND source = \(source.rawValue)
                    UNION
                    SELECT environment, original_transaction_id FROM transactions
                    WHERE app_id = \(app.appID) AND environment = ANY (string_to_array(\(environments)::text, ','))
                      AND original_transaction_id = \(id) AND source = \(source.rawValue)
                    """))
        }
    }

    /// The chains of `app` holding a transaction whose `appAccountToken` is `token`, sorted.
    public func chainKeys(appAccountToken token: OrderID, app: StoredApp) async throws -> [ChainKey] {
        try await pool.withConnection { connection in
            // Tokens are stored as Apple sent them; Apple may upper-case a UUID, so the comparison ignores case
            // (`index_transactions_on_app_id_and_lower_app_account_token`).
            try Self.chainKeys(
                from: connection.query(
                    """
                    SELECT DISTINCT environment, original_transaction_id FROM transactions
                    WHERE app_id = \(app.appID) AND lower(app_account_token) = \(token.rawValue)
                    """))
        }
    }

    /// The chains of `app` holding a transaction of the app transaction `id`, in any environment, sorted.
    public func chainKeys(appTransactionID id: String, app: StoredApp) async throws -> [ChainKey] {
        try await pool.withConnection { connection in
            try Self.chainKeys(
                from: connection.query(
                    """
                    SELECT DISTINCT environment, original_transaction_id FROM transactions
                    WHERE app_id = \(app.appID) AND app_transaction_id = \(id)
                    """))
        }
    }

    /// What a Stripe id names, besides the subscription (`sub_…`, a chain id) and the invoice (`in_…`, a transaction
    /// id) that `chainKeys(transactionID:app:)` finds.
    public enum StripeID: Sendable {
        /// The customer who paid (`cus_…`): every subscription of theirs.
        case customer
        /// The charge that paid an invoice (`ch_…`).
        case charge
    }

    /// The chains of `app` holding a Stripe transaction that names `id` as its customer or its charge, sorted.
    ///
    /// The ids are kept in the stored transaction (`customerID`, `paymentID` of `transactions.payload`), found through
    /// the partial indexes of schema step 52 over the Stripe transactions.
    public func chainKeys(stripe reference: StripeID, id: String, app: StoredApp) async throws -> [ChainKey] {
        try Self.chainKeys(from: try await pool.query(Self.stripeChains(reference, id: id, appID: app.appID)))
    }

    /// The chains of `app` holding a transaction from `source` that names `id` as its customer (`customerID` of the
    /// stored transaction), sorted: a later store's customer lookup (`StoreSupportID.Names.customer`), through the
    /// store's partial index (Paddle's: schema step 61).
    public func chainKeys(customer id: String, source: TransactionSource, app: StoredApp) async throws -> [ChainKey] {
        try Self.chainKeys(from: try await pool.query(Self.customerChains(id, source: source, appID: app.appID)))
    }

    /// The statement `chainKeys(customer:source:app:)` runs. The source is written as a literal (a name of the
    /// closed `TransactionSource`, never data), so that every plan of the prepared statement can use the store's
    /// partial index.
    static func customerChains(_ id: String, source: TransactionSource, appID: Int64) -> PostgresQuery {
        let name = source.rawValue
        precondition(
            name.utf8.allSatisfy { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || $0 == UInt8(ascii: "_") })
        return PostgresQuery.joined(
            [
                PostgresQuery(
                    unsafeSQL:
                        "SELECT DISTINCT environment, original_transaction_id FROM transactions WHERE source = '\(name)'"
                ),
                "app_id = \(appID) AND (payload -> 'transaction' ->> 'customerID') = \(id)",
            ], separator: " AND ")
    }

    /// The statement `chainKeys(stripe:id:app:)` runs. The source is a literal, not a parameter, so that every plan
    /// of the prepared statement, the generic one too, can use the partial index (`WHERE source = 'stripe_api'`).
    static func stripeChains(_ reference: StripeID, id: String, appID: Int64) -> PostgresQuery {
        switch reference {
        case .customer:
            """
            SELECT DISTINCT environment, original_transaction_id FROM transactions
            WHERE app_id = \(appID) AND source = 'stripe_api' AND (payload -> 'transaction' ->> 'customerID') = \(id)
            """
        case .charge:
            """
            SELECT DISTINCT environment, original_transaction_id FROM transactions
            WHERE app_id = \(appID) AND source = 'stripe_api' AND (payload -> 'transaction' ->> 'paymentID') = \(id)
            """
        }
    }

    /// Whether `account` is known to `app` (it submitted, ordered or owned something).
    public func accountExists(_ account: AccountID, app: StoredApp) async throws -> Bool {
        try await pool.withConnection { connection in
            try !connection.query(
                "SELECT 1 FROM accounts WHERE app_id = \(app.appID) AND account_id = \(account.rawValue)"
            ).isEmpty
        }
    }

    static func chainKeys(from rows: PostgresRows) throws -> [ChainKey] {
        try rows.map { row in
            let rawEnvironment = try row.decode(String.self, at: 0)
            guard let environment = StoreEnvironment(rawValue: rawEnvironment) else {
                throw StoreError(code: .corruptRow, message: "unknown environment '\(rawEnvironment)' in a chain row")
            }
            return ChainKey(environment: environment, chainID: try row.decode(String.self, at: 1))
        }.sorted()
    }
}
