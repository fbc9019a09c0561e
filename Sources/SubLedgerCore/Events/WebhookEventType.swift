/// The kinds of webhook event SubLedger sends (docs/guides/webhooks.md, "Event catalog").
public enum WebhookEventType: String, Sendable, Hashable, CaseIterable {
    /// An account gained access from a chain: a purchase, a claim, or a transfer to it.
    case entitlementGranted = "entitlement.granted"
    /// A renewal (or resubscription) extended the account's access.
    case entitlementExtended = "entitlement.extended"
    /// Access taken away: a refund, the end of Family Sharing, or the chain transferred away (`data.reason`).
    case entitlementRevoked = "entitlement.revoked"
    /// A refund or revocation was reversed.
    case entitlementRestored = "entitlement.restored"
    /// The period (or the grace period) ended without renewal: sent by the clock at that moment.
    case entitlementExpired = "entitlement.expired"
    /// Auto-renew turned off or on, or the product that renews next changed.
    case renewalStatusChanged = "subscription.renewal_status_changed"
    /// Billing retry or a grace period began, the grace period ended, or billing recovered (`data.status`).
    case billingIssue = "subscription.billing_issue"
    /// The subscription moved to another product of its group (upgrade, downgrade, crossgrade).
    case productChanged = "subscription.product_changed"
    /// A price increase of the subscription awaits the customer's consent, or the customer consented
    /// (`data.status`: Apple's `PRICE_INCREASE` notification, renewal info's `priceIncreaseStatus`).
    case priceIncrease = "subscription.price_increase"
    /// A subscription purchase or renewal priced by a promotional offer, an offer code or a win-back offer
    /// (StoreKit 2 `offerType` 2, 3, 4): the app server may unlock what the offer promised.
    case offerRedeemed = "subscription.offer_redeemed"
    /// The ownership rule moved a chain to or away from the account (one event per account).
    case ownershipTransferred = "ownership.transferred"
    /// A transaction arrived that no account can be given yet.
    case transactionUnclaimed = "transaction.unclaimed"
    /// A chain that was unclaimed was claimed by an account.
    case transactionClaimed = "transaction.claimed"
    /// The account's consumable credits changed (purchase, refund, reversal).
    case creditsChanged = "credits.changed"
    /// Apple asked for consumption information: the customer requested a refund (`CONSUMPTION_REQUEST`).
    case refundRequested = "refund.requested"
    /// Apple declined the customer's refund request (`REFUND_DECLINED`): the purchase stands.
    case refundDeclined = "refund.declined"
    /// The account was erased (docs/guides/accounts.md, "Erasing an account"): the event names its pseudonym
    /// (`account_id` and `data.pseudonym`), never the erased id.
    case accountErased = "account.erased"
}
