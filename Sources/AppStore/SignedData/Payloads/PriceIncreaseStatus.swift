// Typed views of the raw numbers in Apple's renewal payloads (StoreKit 2 and legacy pending_renewal_info).

/// Apple's `priceIncreaseStatus` / `price_consent_status`.
public enum PriceIncreaseStatus: Int, Hashable, Sendable, Codable, CaseIterable {
    case customerHasNotResponded = 0
    case customerConsentedOrWasNotifiedWithoutNeedingConsent = 1
}
