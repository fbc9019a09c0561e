/// The JSON text of an event, exactly as delivered (docs/guides/webhooks.md, "The event").
public enum WebhookEventBody {
    /// The body, split around its `sequence` value, which the outbox takes from the account's counter only
    /// when the event is really inserted: `head + "<sequence>" + tail` (or `head + "null" + tail`).
    ///
    /// `entitlements` are the account's after the event; `creditBalance` is added to a `credits.changed`
    /// event's data as `balance`; `store` is the store of the product the event is about (named when it is not
    /// the App Store).
    public static func parts(
        of draft: WebhookEventDraft, id: String, bundleID: String, cause: WebhookEventCause,
        entitlements: [Entitlement], creditBalance: Int64?, store: Store = .appStore
    ) -> (head: String, tail: String) {
        var data = draft.data
        if draft.type == .creditsChanged, let creditBalance { data.append(.init("balance", .integer(creditBalance))) }
        var headMembers: [EventJSON.Member] = [
            .init("id", .string(id)),
            .init("type", .string(draft.type.rawValue)),
            .init("occurred_at", .time(draft.occurredAt)),
            .init("app", .string(bundleID)),
            .init("environment", .string(draft.environment.rawValue)),
        ]
        if draft.grantID != nil {
            headMembers.append(.init("store", .string("granted")))
        } else if store != .appStore {
            headMembers.append(.init("store", .string(store.rawValue)))
        }
        headMembers.append(.init("account_id", .optional(draft.account?.rawValue)))
        let head = EventJSON.object(headMembers).text
        let tail = EventJSON.object([
            .init("cause", cause.json),
            .init("data", .object(data)),
            .init("entitlements", .array(entitlements.map(\.eventJSON))),
        ]).text
        // `{...,"account_id":x` + `,"sequence":` | N | `,"cause":...}`
        return (String(head.dropLast()) + ",\"sequence\":", "," + String(tail.dropFirst()))
    }
}

extension Entitlement {
    /// One entitlement as `GET /v1/accounts/{id}/entitlements` writes it (absent values left out, as there; `store`
    /// only when not the App Store).
    public var eventJSON: EventJSON {
        var members: [EventJSON.Member] = [
            .init("entitlement_id", .string(entitlementID)),
            .init("product_id", .string(productID)),
            .init("product_type", .string(productType.rawValue)),
            .init("state", .string(state.name)),
        ]
        if let expiresAt { members.append(.init("expires_at", .time(expiresAt))) }
        if let gracePeriodExpiresAt { members.append(.init("grace_period_expires_at", .time(gracePeriodExpiresAt))) }
        if let willAutoRenew { members.append(.init("will_auto_renew", .bool(willAutoRenew))) }
        members += [
            .init("ownership_type", .string(ownershipType.rawValue)),
            .init("original_transaction_id", .string(chainID)),
            .init("environment", .string(environment.rawValue)),
        ]
        // The App Store is the default: only another store, or a grant, is named.
        if store != .appStore || grantID != nil { members.append(.init("store", .string(sourceName))) }
        return .object(members)
    }
}
