import PostgresLibPQ
import SubLedgerCore

extension LedgerStore {
    /// What a real-time developer notification is stored as: its push body as received, under an id made of its
    /// package and Pub/Sub `messageId` (a redelivery carries the same), version `google_rtdn`.
    public struct GoogleNotificationRecord: Sendable, Hashable {
        /// `google_play:<package name>:<messageId>`.
        public var notificationID: String
        /// Google's event name (`SUBSCRIPTION_RENEWED`, `ONE_TIME_PRODUCT_PURCHASED`, `VOIDED_PURCHASE`, ...).
        public var notificationType: String
        /// The push body, as received.
        public var body: String
        /// `eventTimeMillis`.
        public var eventTime: Instant?

        public init(notificationID: String, notificationType: String, body: String, eventTime: Instant?) {
            self.notificationID = notificationID
            self.notificationType = notificationType
            self.body = body
            self.eventTime = eventTime
        }
    }

    /// Stores a verified real-time developer notification once per id (committed on its own, so the raw push is
    /// kept whatever happens next). A redelivery finds the stored row and counts as another attempt; when that row
    /// was applied already, `alreadyApplied` says so and nothing more is to be done.
    public func storeGoogleNotification(_ record: GoogleNotificationRecord, app: StoredApp) async throws -> (
        id: Int64, alreadyApplied: Bool
    ) {
        try await pool.withConnection { connection in
            let inserted = try connection.query(
                """
                INSERT INTO notifications (app_id, notification_id, version, notification_type, body, signed_at,
                    attempts)
                VALUES (\(app.appID), \(record.notificationID), 'google_rtdn', \(record.notificationType),
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
                // The id is another app's: a package name is unique, so only a forged id can land here.
                throw StoreError(
                    code: .corruptRow, message: "notification \(record.notificationID) belongs to another app")
            }
            return (try row.decode(Int64.self, at: 0), try row.decode(String.self, at: 1) == "applied")
        }
    }
}
