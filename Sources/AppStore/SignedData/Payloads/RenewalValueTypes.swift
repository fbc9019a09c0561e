// Typed views of the raw numbers in Apple's renewal payloads (StoreKit 2 and legacy pending_renewal_info).

/// Apple's `autoRenewStatus` / `auto_renew_status`.
public enum AutoRenewStatus: Int, Hashable, Sendable, Codable, CaseIterable {
    case off = 0
    case on = 1
}

/// Apple's `expirationIntent` / `expiration_intent`.
public enum ExpirationIntent: Int, Hashable, Sendable, Codable, CaseIterable {
    case customerCancelled = 1
    case billingError = 2
    case customerDidNotConsentToPriceIncrease = 3
    case productNotAvailable = 4
    case other = 5
}

/// Apple's `priceIncreaseStatus` / `price_consent_status`.
public enum PriceIncreaseStatus: Int, Hashable, Sendable, Codable, CaseIterable {
    case customerHasNotResponded = 0
    case customerConsentedOrWasNotifiedWithoutNeedingConsent = 1
}
