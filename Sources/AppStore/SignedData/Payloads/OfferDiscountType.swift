// Typed views of the raw strings and numbers in Apple's transaction payloads. Payload structs store the
// raw value (so values Apple adds later survive a round trip) and expose these through computed properties.

/// Apple's `offerDiscountType`.
public enum OfferDiscountType: String, Hashable, Sendable, Codable, CaseIterable {
    case freeTrial = "FREE_TRIAL"
    case payAsYouGo = "PAY_AS_YOU_GO"
    case payUpFront = "PAY_UP_FRONT"
    case oneTime = "ONE_TIME"
}
