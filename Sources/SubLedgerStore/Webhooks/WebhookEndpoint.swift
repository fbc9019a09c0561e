/// A webhook endpoint as listed: where an app's events go, its filters and state, and how its deliveries
/// stand. Never its secrets.
public struct WebhookEndpoint: Sendable, Hashable, Codable {
    public var endpointID: String
    public var bundleID: String
    public var url: String
    public var description: String?
    /// Empty: every event type.
    public var eventTypes: [String]
    /// Empty: every environment.
    public var environments: [String]
    public var allowPrivateNetwork: Bool
    /// `active`, `paused` or `removed`.
    public var state: String
    /// `manual` or `failing` while paused.
    public var pausedReason: String?
    public var consecutiveFailures: Int
    /// Until when the previous secret still signs (after a rotation), RFC 3339 UTC.
    public var previousSecretExpiresAt: String?
    /// The id of the key that seals the current secret; `nil` when it is stored in plaintext.
    public var secretKeyID: String?
    /// Deliveries waiting (due or backing off) and given up.
    public var pendingDeliveries: Int
    public var failedDeliveries: Int
    public var createdAt: String
    public var removedAt: String?
}
