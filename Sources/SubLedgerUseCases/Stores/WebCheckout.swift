import SubLedgerCore
import SubLedgerStore

/// A web purchase a store offers (`StoreRegistration.webCheckout`): SubLedger records the account's order, then
/// asks the store for a hosted checkout that carries it, so whatever the store later says of the purchase names the
/// account it was bought for.
public protocol WebCheckout: Sendable {
    /// Records the order and starts its checkout. Throws `WebCheckoutRefusal` for a request the store cannot take,
    /// the ingestion's refusal (`IngestionError`) when the store could not be asked.
    func start(_ request: WebCheckoutRequest, app: StoredApp, now: Instant) async throws -> WebCheckoutStarted
}

/// What the app server asks for.
public struct WebCheckoutRequest: Sendable, Hashable {
    public var account: AccountID
    public var productID: String
    /// The store's price (`price_…` at Stripe) of `productID` the customer pays.
    public var price: String
    public var successURL: String
    public var cancelURL: String?
    /// The store's customer to charge, when the app server knows one.
    public var customer: String?
    public var trialPeriodDays: Int?
    /// The external purchase token the iOS app received for this purchase, as the app handed it over.
    public var externalPurchaseToken: String?

    public init(
        account: AccountID, productID: String, price: String, successURL: String, cancelURL: String? = nil,
        customer: String? = nil, trialPeriodDays: Int? = nil, externalPurchaseToken: String? = nil
    ) {
        self.account = account
        self.productID = productID
        self.price = price
        self.successURL = successURL
        self.cancelURL = cancelURL
        self.customer = customer
        self.trialPeriodDays = trialPeriodDays
        self.externalPurchaseToken = externalPurchaseToken
    }
}

/// Why a checkout cannot start.
public struct WebCheckoutRefusal: Error, Sendable, Hashable {
    public enum Code: String, Sendable, Hashable {
        /// The product is not one the app sells through the store.
        case productNotSold = "product_not_sold"
        /// The price is not a price of the product, or not of its kind (recurring for a subscription, one-time
        /// otherwise).
        case priceMismatch = "price_mismatch"
        /// A trial was asked for a product that is not a subscription.
        case trialNotOffered = "trial_not_offered"
        /// An external purchase token for an app whose catalog does not report external purchases.
        case externalPurchaseNotReported = "external_purchase_not_reported"
        /// The external purchase token is not this app's, or not a token.
        case invalidExternalPurchaseToken = "invalid_external_purchase_token"
        /// The external purchase token came with another order before.
        case externalPurchaseTokenTaken = "external_purchase_token_taken"
    }

    public var code: Code
    public var message: String

    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }
}

/// A checkout started: the order, and the store's session the customer pays on.
public struct WebCheckoutStarted: Sendable, Hashable {
    public var order: Order
    /// The store's session (`cs_…` at Stripe).
    public var sessionID: String
    /// The session's mode: `subscription` or `payment`.
    public var mode: String
    /// The store's hosted page for the session.
    public var url: String?

    public init(order: Order, sessionID: String, mode: String, url: String?) {
        self.order = order
        self.sessionID = sessionID
        self.mode = mode
        self.url = url
    }
}
