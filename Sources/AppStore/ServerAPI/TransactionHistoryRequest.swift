/// Filters and order of Get Transaction History (all optional; `revision` is handled by the client).
public struct TransactionHistoryRequest: Hashable, Sendable {
    /// Sort order of `Get Transaction History`.
    public enum Order: String, Hashable, Sendable {
        case ascending = "ASCENDING"
        case descending = "DESCENDING"
    }

    /// Apple's `startDate`, milliseconds since 1970.
    public var startDate: Int64?
    /// Apple's `endDate`, milliseconds since 1970.
    public var endDate: Int64?
    /// Apple's `productIDs`.
    public var productIDs: [String]
    /// Raw product types: `AUTO_RENEWABLE`, `NON_RENEWABLE`, `CONSUMABLE`, `NON_CONSUMABLE`.
    public var productTypes: [String]
    /// Apple's `sort`.
    public var sort: Order?
    /// Apple's `subscriptionGroupIdentifiers`.
    public var subscriptionGroupIdentifiers: [String]
    /// Raw `inAppOwnershipType`: `FAMILY_SHARED` or `PURCHASED`.
    public var inAppOwnershipType: String?
    /// Apple's `revoked`.
    public var revoked: Bool?

    /// Creates a request; the default asks for everything in Apple's default order.
    public init(
        startDate: Int64? = nil, endDate: Int64? = nil, productIDs: [String] = [], productTypes: [String] = [],
        sort: Order? = nil, subscriptionGroupIdentifiers: [String] = [], inAppOwnershipType: String? = nil,
        revoked: Bool? = nil
    ) {
        self.startDate = startDate
        self.endDate = endDate
        self.productIDs = productIDs
        self.productTypes = productTypes
        self.sort = sort
        self.subscriptionGroupIdentifiers = subscriptionGroupIdentifiers
        self.inAppOwnershipType = inAppOwnershipType
        self.revoked = revoked
    }

    /// The query items in Apple's names, repeated keys for lists.
    public var queryItems: [(String, String)] {
        var items: [(String, String)] = []
        if let startDate { items.append(("startDate", String(startDate))) }
        if let endDate { items.append(("endDate", String(endDate))) }
        items += productIDs.map { ("productId", $0) }
        items += productTypes.map { ("productType", $0) }
        if let sort { items.append(("sort", sort.rawValue)) }
        items += subscriptionGroupIdentifiers.map { ("subscriptionGroupIdentifier", $0) }
        if let inAppOwnershipType { items.append(("inAppOwnershipType", inAppOwnershipType)) }
        if let revoked { items.append(("revoked", revoked ? "true" : "false")) }
        return items
    }
}
