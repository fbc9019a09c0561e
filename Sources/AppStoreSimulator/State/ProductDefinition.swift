/// An in-app product of a simulated app, as App Store Connect would define it.
public struct ProductDefinition: Sendable, Codable, Hashable {
    /// The product id (`com.example.pro.monthly`).
    public var productID: String
    /// The product kind.
    public var type: ProductKind
    /// The subscription group of an auto-renewable subscription. Default: `group`.
    public var subscriptionGroupID: String?
    /// The period of a subscription. Default: `P1M` for auto-renewable subscriptions.
    public var duration: SubscriptionDuration?
    /// The level in its group, 1 being the highest service (upgrades go to a smaller number). Default: 1.
    public var groupLevel: Int?
    /// The price in milli-units of `currency`. Default: 9990.
    public var price: Int64?
    /// The ISO 4217 currency. Default: `USD`.
    public var currency: String?
    /// A free-trial introductory offer length, granted on a customer's first subscription in the group.
    public var freeTrial: SubscriptionDuration?
    /// The product's win-back offers (their offer identifiers): renewal info lists them as
    /// `eligibleWinBackOfferIds` once a subscription to the product has ended.
    public var winBackOffers: [String]?
    /// A monthly plan with a commitment of this many monthly periods (Apple's billing plan `MONTHLY`, 12 on
    /// the App Store): the customer pays `price` every month and stays committed until the last period.
    public var commitmentPeriods: Int?

    /// Creates a product definition.
    public init(
        productID: String, type: ProductKind, subscriptionGroupID: String? = nil,
        duration: SubscriptionDuration? = nil, groupLevel: Int? = nil, price: Int64? = nil,
        currency: String? = nil, freeTrial: SubscriptionDuration? = nil, winBackOffers: [String]? = nil,
        commitmentPeriods: Int? = nil
    ) {
        self.productID = productID
        self.type = type
        self.subscriptionGroupID = subscriptionGroupID
        self.duration = duration
        self.groupLevel = groupLevel
        self.price = price
        self.currency = currency
        self.freeTrial = freeTrial
        self.winBackOffers = winBackOffers
        self.commitmentPeriods = commitmentPeriods
    }

    /// The definition with every default filled in.
    func normalized() -> ProductDefinition {
        var copy = self
        if type == .autoRenewable {
            copy.subscriptionGroupID = subscriptionGroupID ?? "group"
            copy.duration = duration ?? .oneMonth
            copy.groupLevel = groupLevel ?? 1
        }
        copy.price = price ?? 9990
        copy.currency = currency ?? "USD"
        return copy
    }
}
