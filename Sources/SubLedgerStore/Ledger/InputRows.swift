import PostgresLibPQ
import SubLedgerCore

/// The raw inputs (`receipts`, `notifications`): stored before anything else happens.
enum InputRows {
    /// Marks the input applied, in the transaction that applied it.
    static func markApplied(
        _ reference: LedgerStore.InputReference, environment: AppStoreEnvironment, on connection: PostgresConnection
    ) throws {
        switch reference {
        case .receipt(let id):
            try connection.query(
                """
                UPDATE receipts SET status = 'applied', applied_at = now(), environment = $2, last_error = NULL,
                    next_attempt_at = NULL
                WHERE receipt_id = $1
                """, [id, environment.rawValue])
        case .notification(let id):
            try connection.query(
                "UPDATE notifications SET status = 'applied', applied_at = now(), environment = $2 WHERE notification_row_id = $1",
                [id, environment.rawValue])
        case .none:
            break
        }
    }
}
