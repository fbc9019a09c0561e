import Foundation
import SubLedgerCore

/// One server notification the simulated App Store created, with its delivery attempts.
struct NotificationRecord: Sendable {
    /// Apple's `notificationUUID`.
    var uuid: String
    var bundleID: String
    var appleID: String?
    var environment: AppStoreEnvironment
    var type: String
    var subtype: String?
    var transactionID: String?
    var originalTransactionID: String?
    var createdAt: Instant
    /// The V2 `signedPayload` (kept for Get Notification History even when the app takes V1).
    var signedPayload: String
    /// The HTTP body posted: `{"signedPayload": ...}` or the V1 JSON.
    var body: Data?
    var url: String?
    var attempts: [Attempt] = []
    var firstAttemptAt: Instant?
    var nextAttemptAt: Instant?
    var retriesUsed = 0
    var delivered = false
    /// Held back by out-of-order delivery until the next notification has gone.
    var held = false
    /// Delivery order among due notifications.
    var dispatchOrder: Int
    /// A send is in progress.
    var inFlight = false

    struct Attempt: Sendable {
        var date: Instant
        var result: String
        var httpStatus: Int?
    }
}

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

extension NotificationRecord {
    var summary: NotificationSummary {
        NotificationSummary(
            notificationUUID: uuid, notificationType: type, subtype: subtype, bundleID: bundleID,
            transactionID: transactionID, originalTransactionID: originalTransactionID,
            createdAt: createdAt.millisecondsSince1970, url: url, signedPayload: signedPayload,
            attempts: attempts.map {
                .init(
                    attemptDate: $0.date.millisecondsSince1970, sendAttemptResult: $0.result, httpStatus: $0.httpStatus)
            },
            nextAttemptAt: nextAttemptAt?.millisecondsSince1970, delivered: delivered)
    }
}
