/// The kind of an in-app product, in the control API's spelling, with Apple's names for it.
public enum ProductKind: String, Sendable, Codable, CaseIterable {
    case autoRenewable = "auto_renewable"
    case nonRenewing = "non_renewing"
    case consumable
    case nonConsumable = "non_consumable"

    /// Apple's JWS `type` (`Auto-Renewable Subscription`, ...).
    public var appleType: String {
        switch self {
        case .autoRenewable: "Auto-Renewable Subscription"
        case .nonRenewing: "Non-Renewing Subscription"
        case .consumable: "Consumable"
        case .nonConsumable: "Non-Consumable"
        }
    }

    /// Apple's Server API `productType` filter value (`AUTO_RENEWABLE`, ...).
    public var serverAPIType: String {
        switch self {
        case .autoRenewable: "AUTO_RENEWABLE"
        case .nonRenewing: "NON_RENEWABLE"
        case .consumable: "CONSUMABLE"
        case .nonConsumable: "NON_CONSUMABLE"
        }
    }
}
