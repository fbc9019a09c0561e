import Foundation
import SubLedgerCore

/// One server notification the simulated App Store created, with its delivery attempts.
struct NotificationRecord: Sendable {
    /// Apple's `notificationUUID`.
    var uuid: String
    var bundleID: String
    var appleID: String?
    var environment: StoreEnvironment
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
    /// Dropped by the drop fault: never posted.
    var dropped = false
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
            nextAttemptAt: nextAttemptAt?.millisecondsSince1970, delivered: delivered, dropped: dropped ? true : nil)
    }
}
