/// An offer a subscription purchase is made with: a promotional offer (signed by the app), an offer code
/// (redeemed in the App Store, often outside the app), or a win-back offer (to a lapsed subscriber). It prices
/// the first period; later periods renew at the product's price.
public struct OfferRedemption: Sendable, Codable, Hashable {
    /// Apple's offer types the simulator redeems (StoreKit 2 `offerType`).
    public enum Kind: String, Sendable, Codable, Hashable, CaseIterable {
        /// `offerType` 2.
        case promotional
        /// `offerType` 3; Apple sends `OFFER_REDEEMED` instead of `SUBSCRIBED`.
        case offerCode = "offer_code"
        /// `offerType` 4; only for a subscriber whose subscription in the group has ended.
        case winBack = "win_back"

        /// Apple's `offerType`.
        public var appleOfferType: Int {
            switch self {
            case .promotional: 2
            case .offerCode: 3
            case .winBack: 4
            }
        }
    }

    public var kind: Kind
    /// The offer's reference name in App Store Connect (`offerIdentifier`), 1 to 64 characters.
    public var identifier: String
    /// Apple's `offerDiscountType`: `FREE_TRIAL`, `PAY_AS_YOU_GO` or `PAY_UP_FRONT`. Default `PAY_AS_YOU_GO`.
    public var discountType: String?
    /// The first period's price in milli-units (0 for a free trial; default: half the product's price, or 0
    /// for a free trial).
    public var price: Int64?

    public init(kind: Kind, identifier: String, discountType: String? = nil, price: Int64? = nil) {
        self.kind = kind
        self.identifier = identifier
        self.discountType = discountType
        self.price = price
    }

    /// The discount types Apple states.
    static let discountTypes = ["FREE_TRIAL", "PAY_AS_YOU_GO", "PAY_UP_FRONT"]
}
