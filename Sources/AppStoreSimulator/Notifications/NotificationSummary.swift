/// Public view of a created notification and how delivering it went.
public struct NotificationSummary: Sendable, Codable, Hashable {
    /// Apple's `notificationUUID`.
    public var notificationUUID: String
    /// `notificationType`.
    public var notificationType: String
    /// `subtype`.
    public var subtype: String?
    /// The app.
    public var bundleID: String
    /// The transaction it carries.
    public var transactionID: String?
    /// That transaction's original id.
    public var originalTransactionID: String?
    /// Creation time, milliseconds since 1970.
    public var createdAt: Int64
    /// Where it is posted (nil: no URL configured, never sent).
    public var url: String?
    /// `V1` or `V2` body.
    public var signedPayload: String
    /// Attempts so far: `{attempt_date, send_attempt_result, http_status}`.
    public var attempts: [AttemptSummary]
    /// Next retry, milliseconds since 1970.
    public var nextAttemptAt: Int64?
    /// Whether an attempt succeeded.
    public var delivered: Bool
    /// `true` when the drop fault dropped it (never posted); absent otherwise.
    public var dropped: Bool?

    /// One delivery attempt.
    public struct AttemptSummary: Sendable, Codable, Hashable {
        /// When, milliseconds since 1970.
        public var attemptDate: Int64
        /// Apple's `sendAttemptResult` (`SUCCESS`, `UNSUCCESSFUL_HTTP_RESPONSE_CODE`, `TIMED_OUT`, ...).
        public var sendAttemptResult: String
        /// The receiver's HTTP status, when it answered.
        public var httpStatus: Int?
    }
}
