import Foundation
import GooglePlay
import SubLedgerCore

/// A published notification and its push attempts.
public struct NotificationRecord: Sendable, Codable, Hashable {
    /// One push attempt.
    public struct Attempt: Sendable, Codable, Hashable {
        /// Simulated time of the attempt (milliseconds since 1970).
        public var at: Int64
        /// The receiver's HTTP status, or `nil` when none came.
        public var httpStatus: Int?
        /// `acknowledged` (2xx), `http_error`, `no_response`.
        public var result: String
    }

    public var messageId: String
    /// Simulated publish time (milliseconds since 1970).
    public var publishTime: Int64
    public var notification: DeveloperNotification
    /// The notification exactly as pushed in `message.data`: base64 of its JSON in Google's field names.
    public var data: String
    /// Dropped by the drop fault: never pushed.
    public var dropped: Bool
    public var acknowledged: Bool
    public var attempts: [Attempt]
    /// When the next push is due (simulated, milliseconds since 1970); `nil` once acknowledged, dropped or given up.
    public var nextAttemptAt: Int64?
}

/// Every notification, and the delivery settings.
struct NotificationLog: Sendable {
    struct Settings: Sendable {
        var pushURL: String?
        var audience: String?
        var serviceAccountEmail: String
        var drop = false
        var unauthenticated = false
    }

    var records: [NotificationRecord] = []
    var settings: Settings
    /// Records being pushed now: a push whose receiver calls back into the simulator (which delivers what is
    /// due after every call) must not be sent a second time meanwhile.
    var inFlight: Set<Int> = []

    init(settings: Settings = Settings(serviceAccountEmail: "")) { self.settings = settings }

    /// Pub/Sub's retry backoff: 10 s doubling to 600 s; messages are kept 7 days.
    static let firstBackoff: Int64 = 10_000
    static let maximumBackoff: Int64 = 600_000
    static let retention: Int64 = 7 * 86_400_000

    mutating func publish(_ notification: DeveloperNotification, messageId: String, at: Instant) {
        let dropped = settings.drop
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = ((try? encoder.encode(notification)) ?? Data()).base64EncodedString()
        records.append(
            NotificationRecord(
                messageId: messageId, publishTime: at.millisecondsSince1970, notification: notification, data: data,
                dropped: dropped, acknowledged: false, attempts: [],
                nextAttemptAt: dropped ? nil : at.millisecondsSince1970))
    }

    /// The indexes of records whose next attempt is due (when a URL is set), marked in flight until their
    /// attempt is recorded.
    mutating func takeDue(now: Instant) -> [Int] {
        guard settings.pushURL != nil else { return [] }
        let due = records.indices.filter { index in
            guard !inFlight.contains(index), let next = records[index].nextAttemptAt else { return false }
            return next <= now.millisecondsSince1970
        }
        inFlight.formUnion(due)
        return due
    }

    mutating func record(_ attempt: NotificationRecord.Attempt?, at index: Int) {
        inFlight.remove(index)
        guard let attempt, records.indices.contains(index) else { return }
        records[index].attempts.append(attempt)
        if attempt.result == "acknowledged" {
            records[index].acknowledged = true
            records[index].nextAttemptAt = nil
            return
        }
        let failures = Int64(records[index].attempts.count)
        let shift = min(failures - 1, 10)
        let backoff = min(Self.firstBackoff << shift, Self.maximumBackoff)
        let next = attempt.at + backoff
        records[index].nextAttemptAt = next - records[index].publishTime > Self.retention ? nil : next
    }
}
