/// One delivery of an event to an endpoint, with its attempts, as `webhooks deliveries` shows it.
public struct WebhookDeliveryListing: Sendable, Hashable, Codable {
    /// One HTTP attempt.
    public struct Attempt: Sendable, Hashable, Codable {
        public var attemptedAt: String
        public var durationMs: Int?
        /// The receiver's status; `nil` when no response came.
        public var status: Int?
        public var error: String?
    }

    public var deliveryID: Int64
    public var eventID: String
    public var eventType: String
    public var accountID: String?
    /// `pending`, `delivered` or `failed`.
    public var state: String
    /// `event`, `replay` or `test`.
    public var origin: String
    public var attempts: Int
    public var nextAttemptAt: String?
    public var lastStatus: Int?
    public var lastError: String?
    public var deliveredAt: String?
    public var createdAt: String
    /// The most recent attempts, newest first (at most `WebhookEndpointStore.attemptsPerDelivery`).
    public var recentAttempts: [Attempt]
}
