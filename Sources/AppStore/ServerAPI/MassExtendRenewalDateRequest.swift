/// Apple's `MassExtendRenewalDateRequest`: the body of Extend Subscription Renewal Dates for All Active
/// Subscribers (`POST /inApps/v1/subscriptions/extend/mass`).
public struct MassExtendRenewalDateRequest: Codable, Hashable, Sendable {
    /// Apple's `extendByDays`: 1 to 90.
    public var extendByDays: Int
    /// Apple's `extendReasonCode`: 0 to 3 (`ExtendReasonCode`).
    public var extendReasonCode: Int
    /// Apple's `requestIdentifier`: chosen by the caller; the status endpoint and the summary notification name it.
    public var requestIdentifier: String
    /// Apple's `storefrontCountryCodes` (ISO 3166-1 alpha-3); absent for every storefront.
    public var storefrontCountryCodes: [String]?
    /// Apple's `productId`: the subscription product whose active subscribers are extended.
    public var productID: String

    enum CodingKeys: String, CodingKey {
        case extendByDays
        case extendReasonCode
        case requestIdentifier
        case storefrontCountryCodes
        case productID = "productId"
    }

    /// Creates a request body.
    public init(
        extendByDays: Int, extendReasonCode: ExtendReasonCode, requestIdentifier: String,
        storefrontCountryCodes: [String]?, productID: String
    ) {
        self.extendByDays = extendByDays
        self.extendReasonCode = extendReasonCode.rawValue
        self.requestIdentifier = requestIdentifier
        self.storefrontCountryCodes = storefrontCountryCodes
        self.productID = productID
    }
}
