import PostgresLibPQ
import SubLedgerCore

/// Google Play's table beside the ledger (schema step 38): the lineage of purchase tokens. (What the ledger owes
/// Google, acknowledgements, is in the store obligations outbox: `StoreObligationStore`.)
public struct GooglePlayRecords: Sendable {
    public let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// The chain (its original transaction id) `purchaseToken` belongs to, if the token was seen before.
    public func chain(ofToken purchaseToken: String, appID: Int64) async throws -> ChainKey? {
        let rows = try await pool.query(
            """
            SELECT environment, original_transaction_id FROM google_purchase_tokens
            WHERE app_id = \(appID) AND purchase_token = \(purchaseToken)
            """)
        guard let row = rows.first else { return nil }
        return ChainKey(
            environment: try .stored(row.decode(String.self, at: 0)),
            chainID: try row.decode(String.self, at: 1))
    }

    /// Records that `purchaseToken` belongs to `chain` (Google's lineage, so a repeat records nothing) and
    /// returns the chain the token is recorded on: the first recording wins.
    @discardableResult
    public func record(
        token purchaseToken: String, chain: ChainKey, linkedPurchaseToken: String?, appID: Int64
    ) async throws -> ChainKey {
        try await pool.query(
            """
            INSERT INTO google_purchase_tokens (app_id, purchase_token, environment, original_transaction_id,
                linked_purchase_token)
            VALUES (\(appID), \(purchaseToken), \(chain.environment.rawValue), \(chain.chainID),
                \(linkedPurchaseToken))
            ON CONFLICT (app_id, purchase_token) DO NOTHING
            """)
        return try await self.chain(ofToken: purchaseToken, appID: appID) ?? chain
    }
}
