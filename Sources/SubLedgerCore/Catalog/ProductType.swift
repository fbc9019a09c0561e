/// What kind of App Store product a product id is; decides what a transaction of it grants.
public enum ProductType: String, Hashable, Sendable, Codable, CaseIterable {
    /// Renews by itself each period: grants entitlements until the chain's latest period ends.
    case autoRenewable = "auto_renewable"
    /// Bought period by period; Apple states no expiry, so the catalog's `durationDays` gives it.
    case nonRenewing = "non_renewing"
    /// Bought once, kept forever (unless refunded).
    case nonConsumable = "non_consumable"
    /// Bought to be used up: credits `creditsPerUnit` per unit bought.
    case consumable
}
