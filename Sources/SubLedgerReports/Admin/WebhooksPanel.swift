import PostgresLibPQ
import SubLedgerCore

/// What the admin page shows about webhooks: every endpoint that is not removed with its state and queue,
/// and the most recent failed attempts. A plain value, read by `load(on:)` and rendered by `AdminPage`.
public struct WebhooksPanel: Sendable, Hashable {
    /// One endpoint.
    public struct Endpoint: Sendable, Hashable {
        public var endpointID: String
        public var bundleID: String
        public var url: String
        /// `active` or `paused`.
        public var state: String
        /// `manual` or `failing` while paused.
        public var pausedReason: String?
        public var consecutiveFailures: Int
        public var pending: Int
        public var failed: Int
        public var delivered: Int
        /// When the oldest pending delivery was created; `nil` when nothing waits.
        public var oldestPendingSince: Instant?
        public var lastDeliveredAt: Instant?
    }

    /// One failed attempt.
    public struct Failure: Sendable, Hashable {
        public var attemptedAt: Instant
        public var bundleID: String
        public var url: String
        public var eventType: String
        public var eventID: String
        /// The receiver's status; `nil` when no response came.
        public var status: Int?
        public var error: String?
    }

    public var endpoints: [Endpoint]
    public var recentFailures: [Failure]

    /// At most this many failures are shown.
    public static let failureLimit = 20

    /// Reads the panel on `connection`.
    public static func load(on connection: PostgresConnection) throws -> WebhooksPanel {
        let store = try ReportStore(on: connection, scope: .everything)
        return WebhooksPanel(
            endpoints: try store.webhookEndpointsPanel(),
            recentFailures: try store.recentWebhookFailures(limit: failureLimit))
    }
}
