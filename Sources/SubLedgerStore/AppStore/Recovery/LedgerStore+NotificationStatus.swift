extension LedgerStore {
    /// The status of the stored notification with Apple's `notificationUUID` (V2) or body digest (V1):
    /// `pending`, `applied`, `invalid`, `retry`, `quarantined`; `nil` when none is stored.
    public func notificationStatus(notificationID: String) async throws -> String? {
        try await pool.query("SELECT status FROM notifications WHERE notification_id = \(notificationID)")
            .first.map { try $0.decode(String.self, at: 0) }
    }
}
