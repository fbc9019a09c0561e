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

/// The body and answer of a store's checkout route, `POST /v1/checkout/{store}` (openapi.yaml's): beside
/// `account_id` and `product_id`, which fields of a web checkout the store takes, and what its answer calls the
/// store's session. Declared by the store's registration (`StoreRegistration.checkoutForm`); the HTTP layer serves
/// every registered store's route from it, and the store checks the values (`WebCheckout.start`).
public struct WebCheckoutForm: Sendable, Hashable {
    /// A field of a checkout's body, by its name there.
    public enum Field: String, Sendable, Hashable, CaseIterable {
        /// The store's price of the product (`WebCheckoutRequest.price`).
        case price
        case successURL = "success_url"
        case cancelURL = "cancel_url"
        case customer
        case trialPeriodDays = "trial_period_days"
        case externalPurchaseToken = "external_purchase_token"
    }

    /// The fields a body must give.
    public var required: Set<Field>
    /// The fields a body may give.
    public var optional: Set<Field>
    /// The answer's name for the store's session (`WebCheckoutStarted.sessionID`): `checkout_session_id` at Stripe,
    /// `transaction_id` at Paddle.
    public var sessionField: String

    public init(required: Set<Field>, optional: Set<Field>, sessionField: String) {
        self.required = required
        self.optional = optional.subtracting(required)
        self.sessionField = sessionField
    }

    /// Every field name the body takes, `account_id` and `product_id` included.
    public var fieldNames: Set<String> {
        Set(required.union(optional).map(\.rawValue)).union(["account_id", "product_id"])
    }

    /// The route of `store`'s checkout.
    public static func path(of store: Store) -> String { "/v1/checkout/\(store.rawValue)" }
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
        /// A value of the request is not one the store could take (an id of the wrong shape, a URL that is not
        /// one, a trial out of range).
        case invalidValue = "invalid_value"
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

extension WebCheckoutRefusal {
    /// Refuses `raw` (the request's `field`) unless it is one of `storeName`'s ids: `prefix`, then 1 to `maxLength`
    /// ASCII bytes that `allowed` accepts.
    public static func checkID(
        _ raw: String, field: String, prefix: String, maxLength: Int, storeName: String,
        allowed: (UInt8) -> Bool
    ) throws(WebCheckoutRefusal) {
        let rest = raw.utf8.dropFirst(prefix.utf8.count)
        guard raw.hasPrefix(prefix), (1...maxLength).contains(rest.count), rest.allSatisfy(allowed) else {
            throw WebCheckoutRefusal(
                code: .invalidValue, message: "\(field) must be a \(storeName) id starting with \(prefix)")
        }
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
