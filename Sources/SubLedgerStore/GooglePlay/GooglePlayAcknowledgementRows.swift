import PostgresLibPQ
import SubLedgerCore

/// The `google_play_acknowledgements` outbox rows an apply records (schema step 38), in the apply's transaction.
enum GooglePlayAcknowledgementRows {
    /// Appends one insert per acknowledgement owed; a token recorded before (a renewal, a repeat) inserts nothing.
    static func record(
        _ owed: [GooglePlayAcknowledgement], appID: Int64, now: Instant, into batch: inout PostgresBatch
    ) -> Batched<Void> {
        for acknowledgement in owed {
            batch.append(
                """
                INSERT INTO google_play_acknowledgements (app_id, environment, kind, purchase_token, product_id,
                    transaction_id, account_id, created_at)
                VALUES (\(appID), \(acknowledgement.environment.rawValue), \(acknowledgement.kind.rawValue),
                    \(acknowledgement.purchaseToken), \(acknowledgement.productID), \(acknowledgement.transactionID),
                    \(acknowledgement.account.rawValue), \(timestamp(now)))
                ON CONFLICT (app_id, purchase_token) DO NOTHING
                """)
        }
        return .none
    }
}
