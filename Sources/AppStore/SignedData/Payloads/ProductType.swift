// Typed views of the raw strings and numbers in Apple's transaction payloads. Payload structs store the
// raw value (so values Apple adds later survive a round trip) and expose these through computed properties.

/// Apple's `type` of an in-app product.
public enum ProductType: String, Hashable, Sendable, Codable, CaseIterable {
    case autoRenewableSubscription = "Auto-Renewable Subscription"
    case nonConsumable = "Non-Consumable"
    case consumable = "Consumable"
    case nonRenewingSubscription = "Non-Renewing Subscription"
}
