/// What caused an event: the `cause` member of its body, and the `cause_kind`/`cause_id` columns.
public struct WebhookEventCause: Sendable, Hashable {
    /// The kinds the outbox knows (`webhook_events.cause_kind`).
    public enum Kind: String, Sendable, Hashable {
        /// An App Store Server Notification: `id` is Apple's notification UUID.
        case notification
        /// An app receipt submitted by an app server: `id` is SubLedger's receipt id.
        case receipt
        /// A signed transaction submitted directly: `id` is Apple's transaction id.
        case transaction
        /// The renewal job (or a refresh) asked Apple.
        case poll
        /// Time passed: an expiry.
        case clock
        /// An operator's command (`subledger import`).
        case admin
    }

    public var kind: Kind
    public var id: String?
    /// For a notification, Apple's `notificationType` (`CONSUMPTION_REQUEST` makes `refund.requested`).
    public var notificationType: String?
    /// For a `CONSUMPTION_REQUEST`, the customer's reason as Apple stated it (`refund.requested`'s `reason`).
    public var consumptionRequestReason: String?

    public init(
        kind: Kind, id: String? = nil, notificationType: String? = nil, consumptionRequestReason: String? = nil
    ) {
        self.kind = kind
        self.id = id
        self.notificationType = notificationType
        self.consumptionRequestReason = consumptionRequestReason
    }

    /// The body's `cause` object.
    public var json: EventJSON {
        .object([.init("kind", .string(kind.rawValue)), .init("id", .optional(id))])
    }
}
