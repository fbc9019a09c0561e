// Typed views of the raw numbers in Apple's renewal payloads (StoreKit 2 and legacy pending_renewal_info).

/// Apple's `expirationIntent` / `expiration_intent`.
public enum ExpirationIntent: Int, Hashable, Sendable, Codable, CaseIterable {
    case customerCancelled = 1
    case billingError = 2
    case customerDidNotConsentToPriceIncrease = 3
    case productNotAvailable = 4
    case other = 5
}
