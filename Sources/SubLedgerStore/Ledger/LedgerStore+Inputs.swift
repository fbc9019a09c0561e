import Foundation
import PostgresLibPQ
import SubLedgerCore

extension LedgerStore {
    /// The kind of a stored receipt.
    public enum ReceiptKind: String, Sendable, Hashable {
        /// A base64 PKCS#7 app receipt, verified through verifyReceipt.
        case appReceipt = "app_receipt"
        /// A StoreKit 2 JWS signed transaction.
        case signedTransaction = "signed_transaction"
    }

    /// Stores a submitted receipt or signed transaction as received, before anything else happens to it, and
    /// returns its id. Nothing later can lose it: it stays `pending` until applied or judged invalid.
    public func storeReceipt(
        kind: ReceiptKind,
        body: String,
        account: AccountID?,
        orderID: OrderID? = nil,
        clientTransactionID: String? = nil,
        app: StoredApp
    ) async throws -> Int64 {
        try await pool.transaction { connection in
            if let account { try AccountRows.ensure([account], appID: app.appID, on: connection) }
            let rows = try connection.query(
                """
                INSERT INTO receipts (app_id, account_id, order_id, kind, body, body_sha256, client_transaction_id)
                VALUES ($1, $2, $3::uuid, $4, $5, sha256(convert_to($5, 'UTF8')), $6)
                RETURNING receipt_id
                """, [app.appID, account?.rawValue, orderID?.rawValue, kind.rawValue, body, clientTransactionID])
            return try rows.single().decode(Int64.self, at: 0)
        }
    }

    /// Records that a stored receipt could not be verified: `invalid` (final) or `retry` at `retryAt`.
    public func markReceipt(_ id: Int64, failed reason: String, retryAt: Instant?) async throws {
        try await pool.query(
            """
            UPDATE receipts SET status = CASE WHEN $3::timestamptz IS NULL THEN 'invalid' ELSE 'retry' END,
                attempts = attempts + 1, last_error = $2, next_attempt_at = $3
            WHERE receipt_id = $1 AND status <> 'applied'
            """, [id, reason, timestamp(retryAt)])
    }

    /// The status of a stored receipt (`pending`, `applied`, `invalid`, `retry`), if it exists.
    public func receiptStatus(_ id: Int64) async throws -> String? {
        try await pool.query("SELECT status FROM receipts WHERE receipt_id = $1", [id]).first?.decode(String.self, at: 0)
    }
}

extension LedgerStore {
    /// Stores a verified notification once per notification id. A replay finds the stored row: when that
    /// row was applied already, `alreadyApplied` says so and nothing more is to be done.
    public func storeNotification(
        _ notification: ServerNotification, body: String, app: StoredApp
    ) async throws -> (id: Int64, alreadyApplied: Bool) {
        try await pool.withConnection { connection in
            try Self.storeNotification(notification, body: body, app: app, on: connection)
        }
    }

    /// What `receive(_:body:app:now:)` did with a notification.
    public enum NotificationReceipt: Sendable {
        /// A replay of a notification applied before: nothing changed.
        case duplicate(id: Int64)
        /// Stored (or found stored and not yet applied) and applied now.
        case applied(id: Int64, Applied)
    }

    /// Stores a verified notification (committed on its own, so the raw notification is kept even if
    /// applying it fails) and applies `input` in a transaction, both on one connection: one pool round trip
    /// for the whole notification. A serialization failure or deadlock while applying is retried as
    /// `apply` retries it.
    public func receive(
        _ notification: ServerNotification, body: String, input: LedgerInput, app: StoredApp, now: Instant
    ) async throws -> NotificationReceipt {
        enum FirstAttempt: Sendable {
            case done(NotificationReceipt)
            case retry(id: Int64)
        }
        let first = try await pool.withConnection { connection -> FirstAttempt in
            let stored = try Self.storeNotification(notification, body: body, app: app, on: connection)
            if stored.alreadyApplied { return .done(.duplicate(id: stored.id)) }
            do {
                let applied = try connection.transaction { connection in
                    try Self.apply(input, app: app, reference: .notification(stored.id), now: now, on: connection)
                }
                return .done(.applied(id: stored.id, applied))
            } catch let error as PostgresError where error.isRetryableTransactionFailure {
                return .retry(id: stored.id)
            }
        }
        switch first {
        case .done(let receipt):
            return receipt
        case .retry(let id):
            return .applied(id: id, try await apply(input, app: app, reference: .notification(id), now: now))
        }
    }

    static func storeNotification(
        _ notification: ServerNotification, body: String, app: StoredApp, on connection: PostgresConnection
    ) throws -> (id: Int64, alreadyApplied: Bool) {
        let inserted = try connection.query(
            insertNotificationStatement,
            [
                app.appID, notification.notificationID, notification.version.rawValue, notification.notificationType,
                notification.subtype, notification.environment.rawValue, body, timestamp(notification.signedDate),
            ])
        if let row = inserted.first { return (try row.decode(Int64.self, at: 0), false) }
        let existing = try connection.query(
            notificationStatusStatement, [notification.notificationID]).single()
        return (try existing.decode(Int64.self, at: 0), try existing.decode(String.self, at: 1) == "applied")
    }

    static let insertNotificationStatement = PostgresStatement(
        """
        INSERT INTO notifications (app_id, notification_id, version, notification_type, subtype, environment,
            body, signed_at)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
        ON CONFLICT (notification_id) DO NOTHING
        RETURNING notification_row_id
        """)
    static let notificationStatusStatement = PostgresStatement(
        "SELECT notification_row_id, status FROM notifications WHERE notification_id = $1")
}
