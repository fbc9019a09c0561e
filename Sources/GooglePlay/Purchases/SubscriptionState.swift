/// `SubscriptionPurchaseV2.subscriptionState`.
public struct SubscriptionState: GoogleEnumeration {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let unspecified = Self(rawValue: "SUBSCRIPTION_STATE_UNSPECIFIED")
    /// Bought, payment not yet complete (a pending purchase).
    public static let pending = Self(rawValue: "SUBSCRIPTION_STATE_PENDING")
    /// Renewing, or within a paid period.
    public static let active = Self(rawValue: "SUBSCRIPTION_STATE_ACTIVE")
    /// Paused by the user: no entitlement until it resumes.
    public static let paused = Self(rawValue: "SUBSCRIPTION_STATE_PAUSED")
    /// Payment failed, still entitled while Google retries.
    public static let inGracePeriod = Self(rawValue: "SUBSCRIPTION_STATE_IN_GRACE_PERIOD")
    /// Payment failed after the grace period: no entitlement while Google retries.
    public static let onHold = Self(rawValue: "SUBSCRIPTION_STATE_ON_HOLD")
    /// Will not renew; entitled until the line items' `expiryTime`.
    public static let canceled = Self(rawValue: "SUBSCRIPTION_STATE_CANCELED")
    /// Ended.
    public static let expired = Self(rawValue: "SUBSCRIPTION_STATE_EXPIRED")
    /// A pending purchase that was canceled before it completed.
    public static let pendingPurchaseCanceled = Self(rawValue: "SUBSCRIPTION_STATE_PENDING_PURCHASE_CANCELED")

    /// The values Google documents today.
    public static let known: [Self] = [
        .unspecified, .pending, .active, .paused, .inGracePeriod, .onHold, .canceled, .expired,
        .pendingPurchaseCanceled,
    ]
}

/// `acknowledgementState` of the V2 purchase resources.
public struct AcknowledgementState: GoogleEnumeration {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let unspecified = Self(rawValue: "ACKNOWLEDGEMENT_STATE_UNSPECIFIED")
    /// Not yet acknowledged: Google refunds the purchase three days after it was made.
    public static let pending = Self(rawValue: "ACKNOWLEDGEMENT_STATE_PENDING")
    public static let acknowledged = Self(rawValue: "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED")
}
