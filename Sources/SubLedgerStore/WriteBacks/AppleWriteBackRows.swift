import PostgresLibPQ
import SubLedgerCore

/// The `apple_write_backs` outbox rows an apply records (schema step 30), in the apply's transaction.
enum AppleWriteBackRows {
    /// Appends one insert per write-back owed; a repeat of the apply inserts nothing.
    static func record(_ owed: [AppleWriteBack], appID: Int64, now: Instant, into batch: inout PostgresBatch)
        -> Batched<Void>
    {
        for writeBack in owed {
            batch.append(
                """
                INSERT INTO apple_write_backs (app_id, environment, kind, transaction_id, sequence, account_id,
                    created_at)
                VALUES (\(appID), \(writeBack.environment.rawValue), \(writeBack.kind.rawValue),
                    \(writeBack.transactionID), \(Int64(writeBack.sequence)), \(writeBack.account.rawValue),
                    \(timestamp(now)))
                ON CONFLICT (app_id, environment, kind, transaction_id, sequence) DO NOTHING
                """)
        }
        return .none
    }
}
