/// An event as derived from a decision, before the outbox gives it an id, a sequence and the account's
/// entitlements after it.
public struct WebhookEventDraft: Sendable, Equatable {
    public var type: WebhookEventType
    public var environment: StoreEnvironment
    /// `nil` only for an event about no account (an unclaimed transaction, a refund request for one).
    public var account: AccountID?
    public var occurredAt: Instant
    /// What the event is about, from facts only (an entry's key, a chain and a moment, a notification):
    /// with the type, environment and account it makes the idempotency key.
    public var subject: String
    /// The type-specific `data` members.
    public var data: [EventJSON.Member]

    /// The product the event is about (its `data.product_id`), if it names one.
    public var productID: String? {
        for member in data where member.key == "product_id" {
            if case .string(let id) = member.value { return id }
        }
        return nil
    }

    /// The grant the event is about (its `data.grant_id`), for an event of a granted entitlement.
    public var grantID: String? {
        for member in data where member.key == "grant_id" {
            if case .string(let id) = member.value { return id }
        }
        return nil
    }

    public init(
        type: WebhookEventType, environment: StoreEnvironment, account: AccountID?, occurredAt: Instant,
        subject: String, data: [EventJSON.Member]
    ) {
        self.type = type
        self.environment = environment
        self.account = account
        self.occurredAt = occurredAt
        self.subject = subject
        self.data = data
    }

    /// Unique per app (`webhook_events.idempotency_key`): the same fact learned again, through a replay or
    /// through another input, derives the same key, so it is inserted once. The cause is deliberately not
    /// part of it: a fact is one event whichever input brought it first.
    public var idempotencyKey: String {
        "\(type.rawValue)|\(environment.rawValue)|\(account?.rawValue ?? "-")|\(subject)"
    }
}
