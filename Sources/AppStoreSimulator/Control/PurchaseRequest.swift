/// A purchase made on a device by an Apple ID in an app.
public struct PurchaseRequest: Sendable, Codable, Hashable {
    /// The buying Apple ID.
    public var appleID: String
    /// The app.
    public var bundleID: String
    /// The product.
    public var productID: String
    /// Units of a consumable. Default: 1.
    public var quantity: Int?
    /// StoreKit 2 `appAccountToken` (a UUID).
    public var appAccountToken: String?
    /// StoreKit 1 `applicationUsername`; a UUID-shaped value also becomes `app_account_token`, as at Apple.
    public var applicationUsername: String?
    /// Reproduces Apple's empty-username bug: the app set `applicationUsername`, the receipt shows it empty.
    public var emptyUsernameBug: Bool?
    /// Issue an iOS 6 style transaction receipt for this purchase (and the chain's renewals).
    public var legacyReceipt: Bool?
    /// Ask to Buy: the purchase waits for approval and creates no transaction yet.
    public var askToBuy: Bool?
    /// Give the product's free trial when the Apple ID is eligible. Default: true.
    public var useFreeTrial: Bool?
    /// Buy a subscription with an offer (promotional, offer code, win-back) instead of the free trial.
    public var offer: OfferRedemption?

    /// Creates a purchase request.
    public init(
        appleID: String, bundleID: String, productID: String, quantity: Int? = nil, appAccountToken: String? = nil,
        applicationUsername: String? = nil, emptyUsernameBug: Bool? = nil, legacyReceipt: Bool? = nil,
        askToBuy: Bool? = nil, useFreeTrial: Bool? = nil, offer: OfferRedemption? = nil
    ) {
        self.appleID = appleID
        self.bundleID = bundleID
        self.productID = productID
        self.quantity = quantity
        self.appAccountToken = appAccountToken
        self.applicationUsername = applicationUsername
        self.emptyUsernameBug = emptyUsernameBug
        self.legacyReceipt = legacyReceipt
        self.askToBuy = askToBuy
        self.useFreeTrial = useFreeTrial
        self.offer = offer
    }
}
