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
    /// The store that sells the product (`store` in the file; default the App Store). A Google Play
    /// subscription's `product_id` is its subscription id, whatever base plan or offer was bought.
    public var store: Store

    public init(
        productID: String,
        type: ProductType,
        subscriptionGroupID: String? = nil,
        groupLevel: Int? = nil,
        entitlementIDs: [String] = [],
        creditsPerUnit: Int64? = nil,
        durationDays: Int? = nil,
        prices: [PricePoint]? = nil,
        store: Store = .appStore
    ) {
        self.productID = productID
        self.type = type
        self.subscriptionGroupID = subscriptionGroupID
        self.groupLevel = groupLevel
        self.entitlementIDs = entitlementIDs
        self.creditsPerUnit = creditsPerUnit
        self.durationDays = durationDays
        self.prices = prices
        self.store = store
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
        case store
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
        if let rawStore = try container.decodeIfPresent(String.self, forKey: .store) {
            guard let store = Store(rawValue: rawStore) else {
                throw CatalogError(code: .unknownStore, subject: productID, detail: rawStore)
            }
            self.store = store
        } else {
            store = .appStore
        }
    }

    /// Encodes the file format; an App Store product leaves `store` out (the default), so catalogs written
    /// before Google Play read and compare as they did.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(productID, forKey: .productID)
        try container.encode(type, forKey: .type)
        try container.encodeIfPresent(subscriptionGroupID, forKey: .subscriptionGroupID)
        try container.encodeIfPresent(groupLevel, forKey: .groupLevel)
        try container.encode(entitlementIDs, forKey: .entitlementIDs)
        try container.encodeIfPresent(creditsPerUnit, forKey: .creditsPerUnit)
        try container.encodeIfPresent(durationDays, forKey: .durationDays)
        try container.encodeIfPresent(prices, forKey: .prices)
        if store != .appStore { try container.encode(store, forKey: .store) }
    }
}
