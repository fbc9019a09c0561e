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

    /// A verified notification as received, with the body to keep (`notifications`).
    struct ReceivedNotification {
        var notification: ServerNotification
        var body: String
    }

    /// Thrown inside an apply transaction that was to store its notification (`insert`) when a row of that
    /// notification id exists already (a redelivery); the caller rolls back and goes the way of a stored one.
    struct NotificationStoredBefore: Error {}

    /// Stores `received` once per notification id: the row's id, nil when the id is stored already (nothing
    /// inserted). `appliedIn` stores it as applied in that environment, for an apply in the same transaction
    /// (which then marks nothing: if the apply fails the row is rolled back with it); nil stores it pending.
    static func insert(
        _ received: ReceivedNotification, appID: Int64, appliedIn environment: StoreEnvironment? = nil
    ) -> PostgresQuery {
        let notification = received.notification
        let applied = environment != nil
        return """
            INSERT INTO notifications (app_id, notification_id, version, notification_type, subtype, environment,
                body, signed_at, consumption_request_reason, external_purchase_id, attempts, status, applied_at)
            VALUES (\(appID), \(notification.notificationID), \(notification.version.rawValue),
                \(notification.notificationType), \(notification.subtype),
                \((environment ?? notification.environment).rawValue), \(received.body),
                \(timestamp(notification.signedDate)), \(notification.consumptionRequestReason),
                \(notification.externalPurchaseID), 1,
                CASE WHEN \(applied) THEN 'applied' ELSE 'pending' END, CASE WHEN \(applied) THEN now() END)
            ON CONFLICT (notification_id) DO NOTHING
            RETURNING notification_row_id, \(microseconds("signed_at")), \(microseconds("received_at"))
            """
    }

    /// A notification's row as `insert` stored it: its id, and the timestamps the database stored (in microseconds
    /// since 1970), which its hash chain fields take as stored.
    struct StoredNotification {
        var id: Int64
        var signedAt: Int64?
        var receivedAt: Int64

        /// The fields the hash chain links (`LedgerChainHash`), of `received` stored as this row for app `appID`.
        func fields(of received: ReceivedNotification, appID: Int64) -> LedgerChainHash.Fields {
            let notification = received.notification
            return LedgerChainHash.notificationFields(
                rowID: id, appID: appID, notificationID: notification.notificationID,
                version: notification.version.rawValue, type: notification.notificationType,
                subtype: notification.subtype, body: received.body, signedAt: signedAt, receivedAt: receivedAt)
        }
    }

    /// `insert`'s statement appended to `batch`, storing the notification as applied in `environment`.
    static func insert(
        _ received: ReceivedNotification, appID: Int64, appliedIn environment: StoreEnvironment,
        into batch: inout PostgresBatch
    ) -> Batched<StoredNotification?> {
        let index = batch.append(insert(received, appID: appID, appliedIn: environment))
        return Batched { rows in
            guard let row = rows[index].first else { return nil }
            return StoredNotification(
                id: try row.decode(Int64.self, at: 0), signedAt: try row.decode(Int64?.self, at: 1),
                receivedAt: try row.decode(Int64.self, at: 2))
        }
    }
}
