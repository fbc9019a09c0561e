import PostgresLibPQ
import SubLedgerCore

/// Records Apple's `CONSUMPTION_REQUEST` notifications as consumption requests, each with the store obligation that
/// answers it (`send_consumption_information`, schema step 49), for the obligation sender to send.
enum ConsumptionRequestRows {
    /// Apple waits this long for an answer after it sent the notification.
    static let answerWindowMilliseconds: Int64 = 12 * 3_600_000

    /// Called in the transaction that applies a stored notification: when the notification is a
    /// `CONSUMPTION_REQUEST`, records its request and the obligation to answer it (once each: a replay of the
    /// notification finds both rows). Both are then as durable as the notification's own effects.
    static func recordIfRequested(
        notificationRowID: Int64, input: LedgerInput, app: StoredApp, on connection: PostgresConnection
    ) throws {
        guard input.kind == .notification, let transaction = input.transactions.first else { return }
        let requestedAt = input.observedAt ?? transaction.signedDate ?? transaction.purchaseDate
        let deadline = requestedAt.adding(milliseconds: answerWindowMilliseconds)
        try connection.query(
            """
            INSERT INTO consumption_requests (app_id, notification_row_id, environment, transaction_id,
                original_transaction_id, requested_at, deadline_at, reason)
            SELECT \(app.appID), n.notification_row_id, \(input.environment.rawValue), \(transaction.transactionID),
                \(transaction.chainID), \(timestamp(requestedAt)), \(timestamp(deadline)),
                n.consumption_request_reason
            FROM notifications n
            WHERE n.notification_row_id = \(notificationRowID) AND n.notification_type = 'CONSUMPTION_REQUEST'
            ON CONFLICT (notification_row_id) DO NOTHING
            """)
        // The request is the answer's identity (`consumption_request_id` is unique).
        try connection.query(
            """
            INSERT INTO store_obligations (app_id, store, kind, environment, original_transaction_id, transaction_id,
                consumption_request_id, created_at)
            SELECT r.app_id, \(Store.appStore.rawValue), \(StoreObligation.Kind.sendConsumptionInformation.rawValue),
                r.environment, r.original_transaction_id, r.transaction_id, r.request_id, r.recorded_at
            FROM consumption_requests r
            WHERE r.notification_row_id = \(notificationRowID) AND r.state IN ('pending', 'retry')
            ON CONFLICT DO NOTHING
            """)
    }
}
