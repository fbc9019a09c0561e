import Foundation
import Stripe
import StripeClients
import SubLedgerCore
import SubLedgerStore

/// A web purchase starts here: the account's order, then a Stripe Checkout Session that carries it (the order as
/// `client_reference_id`, and in the metadata of the session and of the subscription it creates, beside the app's
/// bundle id), so whatever Stripe later says about the subscription names the account it was bought for.
public struct StripeCheckout: Sendable {
    let orders: Orders
    let gateway: StripeGateway

    public init(orders: Orders, gateway: StripeGateway) {
        self.orders = orders
        self.gateway = gateway
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

        public init(
            account: AccountID, productID: String, price: String, successURL: String, cancelURL: String? = nil,
            customer: String? = nil, trialPeriodDays: Int? = nil
        ) {
            self.account = account
            self.productID = productID
            self.price = price
            self.successURL = successURL
            self.cancelURL = cancelURL
            self.customer = customer
            self.trialPeriodDays = trialPeriodDays
        }
    }

    /// Why a checkout cannot start.
    public struct Refusal: Error, Sendable, Hashable {
        public enum Code: String, Sendable, Hashable {
            /// The product is not one the app sells through Stripe, or not an auto-renewable subscription.
            case notSoldOnStripe = "not_sold_on_stripe"
            /// The price is not a recurring price of the product.
            case priceMismatch = "price_mismatch"
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
        let order = try await orders.create(account: request.account, productID: request.productID, app: app, now: now)
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
}
