import PostgresLibPQ
import SubLedgerCore

/// The raw inputs (`receipts`, `notifications`): stored before anything else happens.
enum InputRows {
    /// Marks the input applied, in the transaction that applied it.
    static func markApplied(
        _ reference: LedgerStore.InputReference, environment: StoreEnvironment, on connection: PostgresConnection
    ) throws {
        try connection.run { markApplied(reference, environment: environment, into: &$0) }
    }

    /// `markApplied`'s statement, appended to `batch`; reading its outcome throws `NotificationAlreadyApplied`
    /// when the notification was applied already.
    static func markApplied(
        _ reference: LedgerStore.InputReference, environment: StoreEnvironment, into batch: inout PostgresBatch
    ) -> Batched<Void> {
        switch reference {
        case .submission(let id):
            batch.append(markSubmissionApplied(id, environment: environment))
            return .none
        case .notification(let id):
            let index = batch.append(markNotificationApplied(id, environment: environment))
            // The row lock this takes is what two deliveries of one notification serialize on: the second one
            // waits here for the first to commit, then finds it applied, and its transaction is rolled back.
            return Batched { rows in
                if rows[index].rowsAffected == 0 { throw NotificationAlreadyApplied() }
            }
        case .none:
            return .none
        }
    }

    static func markSubmissionApplied(_ id: Int64, environment: StoreEnvironment) -> PostgresQuery {
        """
        UPDATE receipts SET status = 'applied', applied_at = now(), environment = \(environment.rawValue),
            last_error = NULL, next_attempt_at = NULL
        WHERE receipt_id = \(id)
        """
    }

    static func markNotificationApplied(_ id: Int64, environment: StoreEnvironment) -> PostgresQuery {
        """
        UPDATE notifications SET status = 'applied', applied_at = now(), environment = \(environment.rawValue)
        WHERE notification_row_id = \(id) AND status <> 'applied'
        """
    }

    /// Thrown inside an apply transaction when its notification was applied meanwhile (by another delivery or
    /// the renewal job); the caller rolls back and answers `.duplicate`. It never leaves the store.
    struct NotificationAlreadyApplied: Error {}
}
