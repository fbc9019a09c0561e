// Typed views of the raw strings and numbers in Apple's transaction payloads. Payload structs store the
// raw value (so values Apple adds later survive a round trip) and expose these through computed properties.

/// Apple's `type` of an in-app product.
public enum ProductType: String, Hashable, Sendable, Codable, CaseIterable {
    case autoRenewableSubscription = "Auto-Renewable Subscription"
    case nonConsumable = "Non-Consumable"
    case consumable = "Consumable"
    case nonRenewingSubscription = "Non-Renewing Subscription"
}

/// Apple's `inAppOwnershipType` / `in_app_ownership_type`.
public enum InAppOwnershipType: String, Hashable, Sendable, Codable, CaseIterable {
    case familyShared = "FAMILY_SHARED"
    case purchased = "PURCHASED"
}

/// Apple's `transactionReason`: a purchase the customer started, or a subscription renewal.
public enum TransactionReason: String, Hashable, Sendable, Codable, CaseIterable {
    case purchase = "PURCHASE"
    case renewal = "RENEWAL"
}

/// Apple's `offerType`.
public enum OfferType: Int, Hashable, Sendable, Codable, CaseIterable {
    case introductoryOffer = 1
    case promotionalOffer = 2
    case subscriptionOfferCode = 3
    case winBackOffer = 4
}

/// Apple's `offerDiscountType`.
public enum OfferDiscountType: String, Hashable, Sendable, Codable, CaseIterable {
    case freeTrial = "FREE_TRIAL"
    case payAsYouGo = "PAY_AS_YOU_GO"
    case payUpFront = "PAY_UP_FRONT"
    case oneTime = "ONE_TIME"
}

/// Apple's `revocationReason` / legacy `cancellation_reason`.
public enum RevocationReason: Int, Hashable, Sendable, Codable, CaseIterable {
    case refundedForOtherReason = 0
    case refundedDueToIssue = 1
}

/// Apple's `revocationType`.
public enum RevocationType: String, Hashable, Sendable, Codable, CaseIterable {
    case refundFull = "REFUND_FULL"
    case refundProrated = "REFUND_PRORATED"
    case familyRevoke = "FAMILY_REVOKE"
}
