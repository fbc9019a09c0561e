/// When an account's access from a chain ends if nothing more happens: the moment the clock sends
/// `entitlement.expired` (a `webhook_clock_moments` row).
public struct WebhookClockMoment: Sendable, Hashable {
    public var chain: ChainKey
    public var dueAt: Instant

    public init(chain: ChainKey, dueAt: Instant) {
        self.chain = chain
        self.dueAt = dueAt
    }
}
