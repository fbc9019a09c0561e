import SubLedgerCore

/// The event type names an endpoint's filter may name: the catalog of docs/guides/webhooks.md, plus `webhook.test`.
///
/// The events themselves are derived in `SubLedgerCore/Events`; this list, read from their `WebhookEventType`,
/// is what `webhooks add --type` and `replay --type` check against.
public enum WebhookEventTypeNames {
    /// The event `webhooks test` sends.
    public static let test = "webhook.test"

    /// Every type, in the order of the catalog (`WebhookEventType`'s), then `webhook.test`.
    public static let all: [String] = WebhookEventType.allCases.map(\.rawValue) + [test]

    public static func isKnown(_ name: String) -> Bool { all.contains(name) }
}
