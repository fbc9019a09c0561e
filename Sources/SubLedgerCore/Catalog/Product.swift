/// One product of an app as the ledger needs to know it: its type and what it grants.
public struct Product: Hashable, Sendable, Codable {
    public var productID: String
    public var type: ProductType
    /// The App Store subscription group (auto-renewables; optional for non-renewing).
    public var subscriptionGroupID: String?
    /// Apple's level within the group, 1 being the highest service; breaks ties between entitlements.
    public var groupLevel: Int?
    /// The entitlements the product grants while active (none for consumables).
    public var entitlementIDs: [String]
    /// Credits granted per unit bought; required for consumables and only allowed for them.
    public var creditsPerUnit: Int64?
    /// How long one purchase of a non-renewing subscription lasts, in days of 86 400 000 ms.
    public var durationDays: Int?
    /// Catalog price points (`PricePoint`), for transactions Apple sent without a price; `nil` when the file
    /// states none, which keeps the stored ones.
    public var prices: [PricePoint]?

    public init(
        productID: String,
        type: ProductType,
        subscriptionGroupID: String? = nil,
        groupLevel: Int? = nil,
        entitlementIDs: [String] = [],
        creditsPerUnit: Int64? = nil,
        durationDays: Int? = nil,
        prices: [PricePoint]? = nil
    ) {
        self.productID = productID
        self.type = type
        self.subscriptionGroupID = subscriptionGroupID
        self.groupLevel = groupLevel
        self.entitlementIDs = entitlementIDs
        self.creditsPerUnit = creditsPerUnit
        self.durationDays = durationDays
        self.prices = prices
    }

    /// A non-renewing purchase's length in milliseconds, when the catalog states it.
    var durationMilliseconds: Int64? {
        durationDays.map { Int64($0).saturatingMultiplied(by: 86_400_000) }
    }

    enum CodingKeys: String, CodingKey {
        case productID = "product_id"
        case type
        case subscriptionGroupID = "subscription_group_id"
        case groupLevel = "group_level"
        case entitlementIDs = "entitlements"
        case creditsPerUnit = "credits"
        case durationDays = "duration_days"
        case prices
    }

    /// Decodes the file format; an unknown `type` throws `CatalogError.unknownProductType`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        productID = try container.decode(String.self, forKey: .productID)
        let rawType = try container.decode(String.self, forKey: .type)
        guard let type = ProductType(rawValue: rawType) else {
            throw CatalogError(code: .unknownProductType, subject: productID, detail: rawType)
        }
        self.type = type
        subscriptionGroupID = try container.decodeIfPresent(String.self, forKey: .subscriptionGroupID)
        groupLevel = try container.decodeIfPresent(Int.self, forKey: .groupLevel)
        entitlementIDs = try container.decodeIfPresent([String].self, forKey: .entitlementIDs) ?? []
        creditsPerUnit = try container.decodeIfPresent(Int64.self, forKey: .creditsPerUnit)
        durationDays = try container.decodeIfPresent(Int.self, forKey: .durationDays)
        prices = try container.decodeIfPresent([PricePoint].self, forKey: .prices)
    }
}
