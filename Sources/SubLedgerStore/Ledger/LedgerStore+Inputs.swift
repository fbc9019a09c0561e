import Foundation
import PostgresLibPQ
import SubLedgerCore

extension LedgerStore {
    /// Stores a submitted receipt or signed transaction as received, before anything else happens to it, and
    /// returns its id. Nothing later can lose it: it stays `pending` until applied or judged invalid.
    ///
    /// A replay (the same body from the same account, order and client transaction) finds the stored row
    /// instead of storing a second copy; it counts as a new attempt, and a row not yet applied is `pending`
    /// again while it is verified. Storing counts the first attempt (see `StoredInputRetry`).
    public func storeSubmission(
        kind: SubmissionKind,
        body: String,
        account: AccountID?,
        orderID: OrderID? = nil,
        clientTransactionID: String? = nil,
        app: StoredApp
    ) async throws -> Int64 {
        try await pool.transaction { connection in
            // Serializes identical submissions, so two concurrent replays cannot both insert.
            try connection.query(
                """
                SELECT pg_advisory_xact_lock(
                    hashtextextended('receipt:' || \(app.appID)::text || ':' || encode(sha256(convert_to(\(body),
                        'UTF8')), 'hex'), 0))
                """)
            // An erased account's submissions are refused, nothing stored (docs/guides/accounts.md, "Erasing an
            // account"). Checked under the account's lock (shared; an erasure takes it exclusively): a submission
            // stored while the account is being erased waits for the erasure and is refused, instead of storing
            // the id after the erasure rewrote the account's submissions.
            if let account {
                _ = try connection.query(AccountAliasRows.lock(account, appID: app.appID, exclusive: false))
                if try AccountErasureStore.isErased(account, app: app, on: connection) {
                    throw AccountErasureConflict.erased
                }
            }
            if let account { try AccountRows.ensure([account], app: app, on: connection) }
            let existing = try connection.query(
                """
                UPDATE receipts SET attempts = attempts + 1, next_attempt_at = NULL,
                    status = CASE WHEN status = 'applied' THEN status ELSE 'pending' END
                WHERE receipt_id = (
                    SELECT receipt_id FROM receipts
                    WHERE app_id = \(app.appID) AND body_sha256 = sha256(convert_to(\(body), 'UTF8')) AND body =
                        \(body) AND kind = \(kind.rawValue)
                      AND account_id IS NOT DISTINCT FROM \(account?.rawValue) AND order_id IS NOT DISTINCT FROM
                          \(orderID?.rawValue)::uuid
                      AND client_transaction_id IS NOT DISTINCT FROM \(clientTransactionID)
                    ORDER BY receipt_id DESC LIMIT 1)
                RETURNING receipt_id
                """)
            if let row = existing.first { return try row.decode(Int64.self, at: 0) }
            let rows = try connection.query(
                """
                INSERT INTO receipts (app_id, account_id, order_id, kind, body, body_sha256, client_transaction_id,
                    attempts)
                VALUES (\(app.appID), \(account?.rawValue), \(orderID?.rawValue)::uuid, \(kind.rawValue), \(body),
                    sha256(convert_to(\(body), 'UTF8')), \(clientTransactionID), 1)
                RETURNING receipt_id
                """)
            return try rows.single().decode(Int64.self, at: 0)
        }
    }

    /// What recording a failed attempt did to a stored input.
    public struct StoredInputFailure: Sendable, Hashable {
        /// `invalid` (final), `retry` (tried again after `retryAfter`), `quarantined` (gave up), or
        /// `applied` when the input had been applied meanwhile (nothing was changed).
        public var status: String
        /// When the next attempt is due, for `retry`.
        public var retryAfter: Duration?
    }

    /// Records that a stored submission could not be verified or applied: `invalid` when the failure is final
    /// (`retryable` false), else `retry` after the backoff of its attempts, or `quarantined` once it has had
    /// `retry.maximumAttempts`. An applied submission is left as it is.
    @discardableResult
    public func markSubmission(_ id: Int64, failed reason: String, retryable: Bool, now: Instant) async throws
        -> StoredInputFailure
    {
        try await markInput(
            table: "receipts", key: "receipt_id", id: id, reason: reason, retryable: retryable, now: now)
    }

    /// Records that a stored notification could not be applied (as `markSubmission` does for submissions).
    @discardableResult
    public func markNotification(_ id: Int64, failed reason: String, retryable: Bool, now: Instant) async throws
        -> StoredInputFailure
    {
        try await markInput(
            table: "notifications", key: "notification_row_id", id: id, reason: reason, retryable: retryable, now: now)
    }

    private func markInput(
        table: PostgresQuery, key: PostgresQuery, id: Int64, reason: String, retryable: Bool, now: Instant
    ) async throws -> StoredInputFailure {
        let retry = self.retry
        return try await pool.withConnection { connection in
            try Self.markInput(
                table: table, key: key, id: id, reason: reason, retryable: retryable, now: now, retry: retry,
                on: connection)
        }
    }

    static func markInput(
        table: PostgresQuery, key: PostgresQuery, id: Int64, reason: String, retryable: Bool, now: Instant,
        retry: StoredInputRetry, on connection: PostgresConnection
    ) throws -> StoredInputFailure {
        let rows = try connection.query(
            """
            UPDATE \(table) SET
                status = CASE WHEN NOT \(retryable) THEN 'invalid' WHEN attempts >= \(retry.maximumAttempts) THEN 'quarantined'
                         ELSE 'retry' END,
                last_error = \(storableError(reason)),
                next_attempt_at = CASE WHEN NOT \(retryable) OR attempts >= \(retry.maximumAttempts) THEN NULL
                                  ELSE \(retry.nextAttempt(now: now, attempts: "attempts")) END
            WHERE \(key) = \(id) AND status <> 'applied'
            RETURNING status, attempts
            """ as PostgresQuery)
        guard let row = rows.first else { return StoredInputFailure(status: "applied", retryAfter: nil) }
        let status = try row.decode(String.self, at: 0)
        let attempts = Int(try row.decode(Int32.self, at: 1))
        return StoredInputFailure(
            status: status, retryAfter: status == "retry" ? retry.delay(afterAttempts: attempts) : nil)
    }

    /// An error as it can be stored: no NUL (libpq refuses it), bounded length.
    static func storableError(_ reason: String) -> String {
        let cleaned = String(String.UnicodeScalarView(reason.unicodeScalars.filter { $0 != "\0" }))
        return cleaned.count > 1_000 ? String(cleaned.prefix(1_000)) + "…" : cleaned
    }

    /// The status of a stored submission (`pending`, `applied`, `invalid`, `retry`, `quarantined`), if it exists.
    public func submissionStatus(_ id: Int64) async throws -> String? {
        try await pool.query("SELECT status FROM receipts WHERE receipt_id = \(id)").first?.decode(
            String.self, at: 0)
    }

    /// The status of a stored notification, if it exists.
    public func notificationStatus(_ id: Int64) async throws -> String? {
        try await pool.query("SELECT status FROM notifications WHERE notification_row_id = \(id)").first?
            .decode(String.self, at: 0)
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
    public enum NotificationOutcome: Sendable {
        /// A replay of a notification applied before: nothing changed.
        case duplicate(id: Int64)
        /// Stored (or found stored and not yet applied) and applied now.
        case applied(id: Int64, Applied)
    }

    /// Stores a verified notification and applies `input` in one transaction, on one connection: one pool round
    /// trip for the whole notification, and the row is written once, as applied. A redelivery of a notification
    /// stored before is applied as a stored one (`duplicate` when it was applied). When the apply fails, the
    /// transaction is rolled back and the notification is stored on its own with its error (kept, backing off,
    /// until the renewal job or Apple's next delivery applies it, or it is quarantined), and the caller still
    /// learns it failed; a serialization failure or deadlock is retried as `apply` retries it.
    public func receive(
        _ notification: ServerNotification, body: String, input: LedgerInput, app: StoredApp, now: Instant
    ) async throws -> NotificationOutcome {
        enum FirstAttempt: Sendable {
            case done(NotificationOutcome)
            case retry(id: Int64)
        }
        let received = InputRows.ReceivedNotification(notification: notification, body: body)
        let cause = WebhookEventCause(
            kind: .notification, id: notification.notificationID, notificationType: notification.notificationType,
            consumptionRequestReason: notification.consumptionRequestReason)
        let retry = self.retry
        let first = try await pool.withConnection { connection -> FirstAttempt in
            do {
                return .done(
                    try connection.transaction { connection in
                        try Self.applyNotification(
                            storing: received, input, app: app, cause: cause, now: now, on: connection)
                    })
            } catch is InputRows.NotificationStoredBefore {
                // A redelivery: stored before, by an earlier delivery that failed or by one that applied it.
            } catch let error as PostgresError where error.isRetryableTransactionFailure {
                let stored = try Self.storeNotification(notification, body: body, app: app, on: connection)
                return stored.alreadyApplied ? .done(.duplicate(id: stored.id)) : .retry(id: stored.id)
            } catch {
                // Nothing of the transaction is kept: the notification is stored on its own, with the error.
                if let stored = try? Self.storeNotification(notification, body: body, app: app, on: connection),
                    !stored.alreadyApplied
                {
                    _ = try? Self.markInput(
                        table: "notifications", key: "notification_row_id", id: stored.id, reason: "\(error)",
                        retryable: true, now: now, retry: retry, on: connection)
                }
                throw error
            }
            let stored = try Self.storeNotification(notification, body: body, app: app, on: connection)
            if stored.alreadyApplied { return .done(.duplicate(id: stored.id)) }
            do {
                return .done(
                    try connection.transaction { connection in
                        try Self.applyNotification(stored.id, input, app: app, cause: cause, now: now, on: connection)
                    })
            } catch is InputRows.NotificationAlreadyApplied {
                return .done(.duplicate(id: stored.id))
            } catch let error as PostgresError where error.isRetryableTransactionFailure {
                return .retry(id: stored.id)
            } catch {
                _ = try? Self.markInput(
                    table: "notifications", key: "notification_row_id", id: stored.id, reason: "\(error)",
                    retryable: true, now: now, retry: retry, on: connection)
                throw error
            }
        }
        switch first {
        case .done(let outcome):
            return outcome
        case .retry(let id):
            return try await applyStoredNotification(id, input, app: app, now: now)
        }
    }

    /// Applies a stored notification unless it was applied already (by a concurrent delivery to another
    /// instance, or by the renewal job): `.duplicate` then.
    public func applyStoredNotification(
        _ id: Int64, _ input: LedgerInput, app: StoredApp, now: Instant
    ) async throws -> NotificationOutcome {
        do {
            return try await pool.transaction { connection in
                try Self.applyNotification(id, input, app: app, now: now, on: connection)
            }
        } catch is InputRows.NotificationAlreadyApplied {
            return .duplicate(id: id)
        }
    }

    /// Applies the notification, and with it marks its row applied unless it is applied already: then
    /// `InputRows.NotificationAlreadyApplied` is thrown, and the caller rolls the transaction back and answers
    /// `.duplicate`. Of two deliveries of one notification racing here the second waits on the row (or on
    /// the chain's lock) until the first commits, then finds it applied: exactly one of them says applied.
    /// Marking the row at the end rather than locking it first saves the apply a statement; a race costs the
    /// loser an apply that is rolled back.
    static func applyNotification(
        _ id: Int64, _ input: LedgerInput, app: StoredApp, cause cause0: WebhookEventCause? = nil, now: Instant,
        on connection: PostgresConnection
    ) throws -> NotificationOutcome {
        // The webhook events' cause: Apple's notification UUID (and its type, for refund.requested). `receive`
        // knows it from the notification it just stored; a stored notification applied later reads it back.
        let cause: WebhookEventCause
        if let known = cause0 {
            cause = known
        } else {
            let row = try connection.query(
                """
                SELECT notification_id, notification_type, consumption_request_reason FROM notifications
                WHERE notification_row_id = \(id)
                """
            ).single()
            cause = WebhookEventCause(
                kind: .notification, id: try row.decode(String.self, at: 0),
                notificationType: try row.decode(String?.self, at: 1),
                consumptionRequestReason: try row.decode(String?.self, at: 2))
        }
        return try applyNotification(
            .notification(id), storing: nil, input, app: app, cause: cause, now: now, on: connection)
    }

    /// `applyNotification`, storing the notification received now in the apply's first batch, as applied: throws
    /// `InputRows.NotificationStoredBefore` when its id was stored before, and the caller rolls back.
    static func applyNotification(
        storing received: InputRows.ReceivedNotification, _ input: LedgerInput, app: StoredApp,
        cause: WebhookEventCause, now: Instant, on connection: PostgresConnection
    ) throws -> NotificationOutcome {
        try applyNotification(.none, storing: received, input, app: app, cause: cause, now: now, on: connection)
    }

    private static func applyNotification(
        _ reference: InputReference, storing received: InputRows.ReceivedNotification?, _ input: LedgerInput,
        app: StoredApp, cause: WebhookEventCause, now: Instant, on connection: PostgresConnection
    ) throws -> NotificationOutcome {
        // Apple asks about a refund: the request is recorded with the notification's effects (docs/guides/operate.md),
        // after the apply; any other type ends the transaction with the apply's last batch.
        // Apple asks for a token's report: recorded after the apply too (step 51).
        let recordsRequest =
            cause.notificationType == "CONSUMPTION_REQUEST" || cause.notificationType == "EXTERNAL_PURCHASE_TOKEN"
        let (applied, stored) = try Self.applying(
            input, app: app, reference: reference, storing: received, cause: cause, committing: !recordsRequest,
            now: now, on: connection)
        guard case .notification(let id) = stored else {
            throw StoreError(code: .corruptRow, message: "a notification's apply names no stored notification")
        }
        // The cause's type is the stored row's `notification_type`, which the statement checks again.
        if cause.notificationType == "CONSUMPTION_REQUEST" {
            try ConsumptionRequestRows.recordIfRequested(notificationRowID: id, input: input, app: app, on: connection)
        } else if recordsRequest {
            try ExternalPurchaseRows.recordNotified(notificationRowID: id, app: app, now: now, on: connection)
        }
        return .applied(id: id, applied)
    }

    static func storeNotification(
        _ notification: ServerNotification, body: String, app: StoredApp, on connection: PostgresConnection
    ) throws -> (id: Int64, alreadyApplied: Bool) {
        let inserted = try connection.query(
            InputRows.insert(.init(notification: notification, body: body), appID: app.appID))
        if let row = inserted.first { return (try row.decode(Int64.self, at: 0), false) }
        let existing = try connection.query(
            "SELECT notification_row_id, status FROM notifications WHERE notification_id = \(notification.notificationID)"
        ).single()
        let id = try existing.decode(Int64.self, at: 0)
        let applied = try existing.decode(String.self, at: 1) == "applied"
        // A redelivery of one not applied yet is another attempt (counted before it starts; see `StoredInputRetry`).
        if !applied {
            try connection.query(
                "UPDATE notifications SET attempts = attempts + 1 WHERE notification_row_id = \(id) AND status <> 'applied'"
            )
        }
        return (id, applied)
    }
}
