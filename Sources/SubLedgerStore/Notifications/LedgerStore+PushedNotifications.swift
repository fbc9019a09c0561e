import PostgresLibPQ
import SubLedgerCore

extension LedgerStore {
    /// What a store's pushed notification is stored as before anything of it is applied: its body as received,
    /// under an id the store's redelivery carries again (Google Play: `google_play:<package>:<Pub/Sub messageId>`;
    /// Stripe: `stripe:<event id>`), in its format (`google_rtdn`, `stripe_event`).
    public struct PushedNotificationRecord: Sendable, Hashable {
        public var notificationID: String
        public var format: NotificationFormat
        /// The store's name of the event (`SUBSCRIPTION_RENEWED`, `invoice.paid`, …).
        public var notificationType: String
        /// The body, as received.
        public var body: String
        /// When the store says the event happened.
        public var eventTime: Instant?

        public init(
            notificationID: String, format: NotificationFormat, notificationType: String, body: String,
            eventTime: Instant?
        ) {
            self.notificationID = notificationID
            self.format = format
            self.notificationType = notificationType
            self.body = body
            self.eventTime = eventTime
        }
    }

    /// Stores a verified pushed notification once per id (committed on its own, so the raw push is kept whatever
    /// happens next). A redelivery finds the stored row and counts as another attempt; when that row was applied
    /// already, `alreadyApplied` says so and nothing more is to be done.
    public func storePushedNotification(_ record: PushedNotificationRecord, app: StoredApp) async throws -> (
        id: Int64, alreadyApplied: Bool
    ) {
        try await pool.withConnection { connection in
            let inserted = try connection.query(
                """
                INSERT INTO notifications (app_id, notification_id, version, notification_type, body, signed_at,
                    attempts)
                VALUES (\(app.appID), \(record.notificationID), \(record.format.rawValue), \(record.notificationType),
                    \(record.body), \(timestamp(record.eventTime)), 1)
                ON CONFLICT (notification_id) DO NOTHING
                RETURNING notification_row_id
                """)
            if let row = inserted.first { return (try row.decode(Int64.self, at: 0), false) }
            let existing = try connection.query(
                """
                UPDATE notifications SET attempts = attempts + CASE WHEN status = 'applied' THEN 0 ELSE 1 END
                WHERE notification_id = \(record.notificationID) AND app_id = \(app.appID)
                RETURNING notification_row_id, status
                """)
            guard let row = existing.first else {
                // The id is another app's: the store's ids name the app (a package) or are the store's own (an
                // event of another app's endpoint), so only a forged or misrouted push can land here.
                throw StoreError(
                    code: .corruptRow, message: "notification \(record.notificationID) belongs to another app")
            }
            return (try row.decode(Int64.self, at: 0), try row.decode(String.self, at: 1) == "applied")
        }
    }
}
