/// The event type names an endpoint's filter may name: the catalog of docs/webhooks.md, plus `webhook.test`.
///
/// The events themselves are derived in `SubLedgerCore/Events`; this list is what `webhooks add --type` and
/// `replay --type` check against, kept in this one place so that a new event type is one line here.
public enum WebhookEventTypeNames {
    /// The event `webhooks test` sends.
    public static let test = "webhook.test"

    /// Every type, in the order of the catalog.
    public static let all: [String] = [
        "entitlement.granted",
        "entitlement.extended",
        "entitlement.revoked",
        "entitlement.restored",
        "entitlement.expired",
        "subscription.renewal_status_changed",
        "subscription.billing_issue",
        "subscription.product_changed",
        "ownership.transferred",
        "transaction.unclaimed",
        "transaction.claimed",
        "credits.changed",
        "refund.requested",
        test,
    ]

    public static func isKnown(_ name: String) -> Bool { all.contains(name) }
}
