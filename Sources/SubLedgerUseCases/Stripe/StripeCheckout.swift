import AppStore
import Foundation
import Stripe
import StripeClients
import SubLedgerCore
import SubLedgerStore

/// A web purchase starts here: the account's order, then a Stripe Checkout Session that carries it (the order as
/// `client_reference_id`, and in the metadata of the session and of the subscription it creates, beside the app's
/// bundle id), so whatever Stripe later says about the subscription names the account it was bought for.
///
/// An iOS app that links out to this purchase hands over the external purchase token StoreKit gave it: checked
/// against the app (`ExternalPurchaseTokenChecker`) and stored with the order, once, so the purchase and its
/// renewals and refunds are reported to Apple (docs/guides/stripe.md, "External Purchase reporting").
public struct StripeCheckout: Sendable {
    let orders: Orders
    let gateway: StripeGateway
    let externalPurchases: ExternalPurchaseStore

    public init(orders: Orders, gateway: StripeGateway, externalPurchases: ExternalPurchaseStore) {
        self.orders = orders
        self.gateway = gateway
        self.externalPurchases = externalPurchases
    }

    /// What the app server asks for.
    public struct Request: Sendable, Hashable {
        public var account: AccountID
        public var productID: String
        /// The Stripe price (`price_…`) of `productID` the customer pays.
        public var price: String
        public var successURL: String
        public var cancelURL: String?
        /// The Stripe customer to charge, when the app server knows one.
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
    public struct Refusal: Error, Sendable, Hashable {
        public enum Code: String, Sendable, Hashable {
            /// The product is not one the app sells through Stripe, or not an auto-renewable subscription.
            case notSoldOnStripe = "not_sold_on_stripe"
            /// The price is not a recurring price of the product.
            case priceMismatch = "price_mismatch"
            /// An external purchase token for an app whose catalog does not report external purchases.
            case externalPurchaseNotReported = "external_purchase_not_reported"
            /// The external purchase token is not this app's, or not a token (`ExternalPurchaseTokenError`).
            case invalidExternalPurchaseToken = "invalid_external_purchase_token"
            /// The external purchase token came with another order before.
            case externalPurchaseTokenTaken = "external_purchase_token_taken"
        }

        public var code: Code
        public var message: String
    }

    /// A checkout started: the order, and the session the customer pays on.
    public struct Started: Sendable, Hashable {
        public var order: Order
        /// `cs_…`.
        public var sessionID: String
        /// Stripe's hosted page for the session.
        public var url: String?
    }

    /// Records the order, then creates its Checkout Session (one per order: Stripe's idempotency key is the order).
    public func start(_ request: Request, app: StoredApp, now: Instant) async throws -> Started {
        guard let product = app.definition.product(request.productID), product.store == .stripe,
            product.type == .autoRenewable
        else {
            throw Refusal(
                code: .notSoldOnStripe,
                message:
                    "'\(request.productID)' is not an auto-renewable subscription \(app.bundleID) sells through Stripe")
        }
        let token = try request.externalPurchaseToken.map { try Self.check($0, app: app, now: now) }
        let client = try await gateway.client(for: app)
        let price: StripePrice
        do {
            price = try await client.price(request.price)
        } catch {
            if error.code == .notFound { throw Refusal(code: .priceMismatch, message: "Stripe has no such price") }
            throw IngestionError(error)
        }
        guard price.product.id == request.productID, price.recurring != nil else {
            throw Refusal(
                code: .priceMismatch, message: "the price is not a recurring price of '\(request.productID)'")
        }
        let order: Order
        if let token {
            do {
                order = try await externalPurchases.createOrder(
                    account: request.account, productID: request.productID, token: token, app: app, now: now)
            } catch is ExternalPurchaseTokenTaken {
                throw Refusal(
                    code: .externalPurchaseTokenTaken,
                    message: "the external purchase token was given with another order")
            }
        } else {
            order = try await orders.create(account: request.account, productID: request.productID, app: app, now: now)
        }
        do {
            let session = try await client.createSubscriptionCheckout(
                price: request.price, clientReferenceID: order.id.rawValue,
                metadata: [
                    (StripeSubscriptionReading.orderMetadataKey, order.id.rawValue),
                    (StripeSubscriptionReading.appMetadataKey, app.bundleID),
                ],
                successURL: request.successURL, cancelURL: request.cancelURL, customer: request.customer,
                trialPeriodDays: request.trialPeriodDays, idempotencyKey: "subledger-order-" + order.id.rawValue)
            return Started(order: order, sessionID: session.id, url: session.url)
        } catch {
            throw IngestionError(error)
        }
    }

    /// `raw` checked against `app` at `now`, as it is stored.
    public static func check(_ raw: String, app: StoredApp, now: Instant) throws -> ExternalPurchaseTokenRecord {
        let definition = app.definition
        guard definition.externalPurchase.report else {
            throw Refusal(
                code: .externalPurchaseNotReported,
                message: "\(app.bundleID) does not report external purchases (external_purchase.report in the catalog)")
        }
        let checker = ExternalPurchaseTokenChecker(
            configuration: .init(bundleID: app.bundleID, appAppleID: definition.appAppleID))
        do {
            let checked = try checker.check(raw, now: now)
            return ExternalPurchaseTokenRecord(
                externalPurchaseID: checked.externalPurchaseID, environment: checked.environment,
                tokenType: checked.tokenType?.rawValue, createdAt: checked.createdAt)
        } catch {
            throw Refusal(
                code: .invalidExternalPurchaseToken,
                message: "external_purchase_token is refused: \(error.code)"
                    + (error.field.map { " (\($0))" } ?? ""))
        }
    }
}
