/// An app on Google Play: its package name and what it sells.
public struct PackageDefinition: Sendable, Codable, Hashable {
    /// `com.example.app`.
    public var packageName: String
    /// Subscriptions, each with base plans and offers.
    public var subscriptions: [SubscriptionDefinition]
    /// One-time products (in-app products), consumable or not.
    public var products: [OneTimeProductDefinition]

    public init(
        packageName: String, subscriptions: [SubscriptionDefinition] = [], products: [OneTimeProductDefinition] = []
    ) {
        self.packageName = packageName
        self.subscriptions = subscriptions
        self.products = products
    }

    enum CodingKeys: String, CodingKey {
        case packageName, subscriptions, products
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        packageName = try container.decode(String.self, forKey: .packageName)
        subscriptions = try container.decodeIfPresent([SubscriptionDefinition].self, forKey: .subscriptions) ?? []
        products = try container.decodeIfPresent([OneTimeProductDefinition].self, forKey: .products) ?? []
    }
}

/// A subscription product (`productId`, e.g. `pro`) with its base plans.
public struct SubscriptionDefinition: Sendable, Codable, Hashable {
    public var productId: String
    public var basePlans: [BasePlanDefinition]

    public init(productId: String, basePlans: [BasePlanDefinition]) {
        self.productId = productId
        self.basePlans = basePlans
    }
}

/// An auto-renewing base plan: period, price, grace period and account hold, and its offers.
public struct BasePlanDefinition: Sendable, Codable, Hashable {
    public var basePlanId: String
    public var billingPeriod: BillingPeriod
    /// The price in micros. Default: 9,990,000 (9.99).
    public var priceMicros: Int64
    /// ISO 4217. Default: `USD`.
    public var currencyCode: String
    /// Days of grace period after a failed renewal (entitled): 0, 3, 7, 14 or 30. Default: 3.
    public var gracePeriodDays: Int
    /// Days of account hold after the grace period (not entitled): 0 to 60. Default: 30.
    public var accountHoldDays: Int
    public var offers: [OfferDefinition]

    public init(
        basePlanId: String, billingPeriod: BillingPeriod, priceMicros: Int64 = 9_990_000, currencyCode: String = "USD",
        gracePeriodDays: Int = 3, accountHoldDays: Int = 30, offers: [OfferDefinition] = []
    ) {
        self.basePlanId = basePlanId
        self.billingPeriod = billingPeriod
        self.priceMicros = priceMicros
        self.currencyCode = currencyCode
        self.gracePeriodDays = gracePeriodDays
        self.accountHoldDays = accountHoldDays
        self.offers = offers
    }

    enum CodingKeys: String, CodingKey {
        case basePlanId, billingPeriod, priceMicros, currencyCode, gracePeriodDays, accountHoldDays, offers
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        basePlanId = try container.decode(String.self, forKey: .basePlanId)
        billingPeriod = try container.decode(BillingPeriod.self, forKey: .billingPeriod)
        priceMicros = try container.decodeIfPresent(Int64.self, forKey: .priceMicros) ?? 9_990_000
        currencyCode = try container.decodeIfPresent(String.self, forKey: .currencyCode) ?? "USD"
        gracePeriodDays = try container.decodeIfPresent(Int.self, forKey: .gracePeriodDays) ?? 3
        accountHoldDays = try container.decodeIfPresent(Int.self, forKey: .accountHoldDays) ?? 30
        offers = try container.decodeIfPresent([OfferDefinition].self, forKey: .offers) ?? []
    }
}

/// An offer of a base plan, reported in `offerDetails`: with `freeTrialDays`, a free trial before the base plan's
/// periods (an introductory price is not simulated: after any trial the base plan's price is charged).
public struct OfferDefinition: Sendable, Codable, Hashable {
    public var offerId: String
    public var offerTags: [String]?
    /// A free trial of this many days (1 to 365) before the first charge.
    public var freeTrialDays: Int?

    public init(offerId: String, offerTags: [String]? = nil, freeTrialDays: Int? = nil) {
        self.offerId = offerId
        self.offerTags = offerTags
        self.freeTrialDays = freeTrialDays
    }
}

/// A one-time product.
public struct OneTimeProductDefinition: Sendable, Codable, Hashable {
    public var productId: String
    /// Whether it can be consumed (and bought again).
    public var consumable: Bool
    /// The price in micros. Default: 990,000 (0.99).
    public var priceMicros: Int64
    public var currencyCode: String

    public init(productId: String, consumable: Bool = false, priceMicros: Int64 = 990_000, currencyCode: String = "USD")
    {
        self.productId = productId
        self.consumable = consumable
        self.priceMicros = priceMicros
        self.currencyCode = currencyCode
    }

    enum CodingKeys: String, CodingKey {
        case productId, consumable, priceMicros, currencyCode
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        productId = try container.decode(String.self, forKey: .productId)
        consumable = try container.decodeIfPresent(Bool.self, forKey: .consumable) ?? false
        priceMicros = try container.decodeIfPresent(Int64.self, forKey: .priceMicros) ?? 990_000
        currencyCode = try container.decodeIfPresent(String.self, forKey: .currencyCode) ?? "USD"
    }
}
