import PostgresLibPQ
import SubLedgerCore

/// The `store_obligations` outbox rows an apply records (schema step 43), in the apply's transaction.
enum StoreObligationRows {
    /// Appends one insert per obligation; one recorded before (a repeat of the apply, a renewal on a Google
    /// purchase token already owed) inserts nothing.
    static func record(_ owed: [StoreObligation], appID: Int64, now: Instant, into batch: inout PostgresBatch)
        -> Batched<Void>
    {
        for obligation in owed {
            var bindingSequence = 0
            var purchaseToken: String?
            var productID: String?
            var consumptionRequestID: Int64?
            var reportID: Int64?
            switch obligation.payload {
            case .appStore(let sequence): bindingSequence = sequence
            case .consumptionRequest(let id): consumptionRequestID = id
            case .externalPurchaseReport(let id): reportID = id
            case .googlePlay(let token, let product): (purchaseToken, productID) = (token, product)
            }
            // No conflict target: each store's identity is its own unique index (steps 43, 49 and 51).
            batch.append(
                """
                INSERT INTO store_obligations (app_id, store, kind, environment, original_transaction_id,
                    transaction_id, account_id, binding_sequence, purchase_token, product_id, consumption_request_id,
                    external_purchase_report_id, created_at)
                VALUES (\(appID), \(obligation.store.rawValue), \(obligation.kind.rawValue),
                    \(obligation.chain.environment.rawValue), \(obligation.chain.chainID),
                    \(obligation.transactionID), \(obligation.account?.rawValue), \(Int64(bindingSequence)),
                    \(purchaseToken), \(productID), \(consumptionRequestID), \(reportID), \(timestamp(now)))
                ON CONFLICT DO NOTHING
                """)
        }
        return .none
    }
}
