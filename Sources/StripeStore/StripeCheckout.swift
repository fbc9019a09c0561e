import AppStore
import Foundation
import Stripe
import StripeClients
import SubLedgerCore
import SubLedgerStore
import SubLedgerUseCases

/// A web purchase starts here: the account's order, then a Stripe Checkout Session that carries it (the order as
/// `client_reference_id`, and in the metadata of the session and of the subscription or payment intent it creates,
/// beside the app's bundle id), so whatever Stripe later says about the purchase names the account it was bought for.
/// An auto-renewable product is sold in `subscription` mode; a non-consumable, consumable or non-renewing one in
/// `payment` mode, a one-time payment whose payment intent also names the product.
///
/// An iOS app that links out to this purchase hands over the external purchase token StoreKit gave it: checked
/// against the app (`ExternalPurchaseTokenChecker`) and stored with the order, once, so the purchase and its
/// renewals and refunds are reported to Apple (docs/guides/stripe.md, "External Purchase reporting").
public struct StripeCheckout: WebCheckout {
    let orders: Orders
    let gateway: StripeGateway
    let externalPurchases: ExternalPurchaseStore

    public init(orders: Orders, gateway: StripeGateway, externalPurchases: ExternalPurchaseStore) {
        self.orders = orders
        self.gateway = gateway
        self.externalPurchases = externalPurchases
    }

    /// What the app server asks for (`price`: the Stripe price, `price_…`; `customer`: a Stripe customer, `cus_…`).
    public typealias Request = WebCheckoutRequest
    /// Why a checkout cannot start.
    public typealias Refusal = WebCheckoutRefusal
    /// A checkout started: the order, and the Checkout Session (`cs_…`) the customer pays on.
    public typealias Started = WebCheckoutStarted

    /// Records the order, then creates its Checkout Session (one per order: Stripe's idempotency key is the order).
    public func start(_ request: Request, app: StoredApp, now: Instant) async throws -> Started {
        try Self.check(request)
        guard let product = app.definition.product(request.productID), product.store == .stripe else {
            throw Refusal(
                code: .productNotSold,
                message: "'\(request.productID)' is not a product \(app.bundleID) sells through Stripe")
        }
        let isSubscription = product.type == .autoRenewable
        if !isSubscription, request.trialPeriodDays != nil {
            throw Refusal(
                code: .trialNotOffered, message: "'\(request.productID)' is a one-time purchase: it has no trial")
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
        guard price.product.id == request.productID else {
            throw Refusal(code: .priceMismatch, message: "the price is not a price of '\(request.productID)'")
        }
        if isSubscription, price.recurring == nil {
            throw Refusal(
                code: .priceMismatch, message: "the price is not a recurring price of '\(request.productID)'")
        }
        if !isSubscription, !price.isOneTime {
            throw Refusal(
                code: .priceMismatch, message: "the price is not a one-time price of '\(request.productID)'")
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
        var metadata = [
            (StripeSubscriptionReading.orderMetadataKey, order.id.rawValue),
            (StripeSubscriptionReading.appMetadataKey, app.bundleID),
        ]
        let idempotencyKey = "subledger-order-" + order.id.rawValue
        do {
            let session: StripeCheckoutSession
            if isSubscription {
                session = try await client.createSubscriptionCheckout(
                    price: request.price, clientReferenceID: order.id.rawValue, metadata: metadata,
                    successURL: request.successURL, cancelURL: request.cancelURL, customer: request.customer,
                    trialPeriodDays: request.trialPeriodDays, idempotencyKey: idempotencyKey)
            } else {
                metadata.append((StripePaymentReading.productMetadataKey, request.productID))
                session = try await client.createPaymentCheckout(
                    price: request.price, clientReferenceID: order.id.rawValue, metadata: metadata,
                    successURL: request.successURL, cancelURL: request.cancelURL, customer: request.customer,
                    idempotencyKey: idempotencyKey)
            }
            return Started(order: order, sessionID: session.id, mode: session.mode, url: session.url)
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

extension StripeCheckout {
    /// Refuses a request whose values Stripe could never take: ids of the wrong shape, return pages that are not
    /// http or https URLs, a trial outside Stripe's 1 to 730 days, text no external purchase token could be (the
    /// token's checker bounds, decodes and checks it after).
    static func check(_ request: Request) throws(Refusal) {
        try Refusal.checkID(
            request.price, field: "price", prefix: "price_", maxLength: 250, storeName: "Stripe", allowed: isIDByte)
        if let customer = request.customer {
            try Refusal.checkID(
                customer, field: "customer", prefix: "cus_", maxLength: 250, storeName: "Stripe", allowed: isIDByte)
        }
        try checkURL(request.successURL, field: "success_url")
        if let cancelURL = request.cancelURL { try checkURL(cancelURL, field: "cancel_url") }
        if let days = request.trialPeriodDays, !(1...730).contains(days) {
            throw Refusal(code: .invalidValue, message: "trial_period_days must be between 1 and 730")
        }
        if let token = request.externalPurchaseToken, !(1...4096).contains(token.utf8.count) || token.utf8.contains(0) {
            throw Refusal(
                code: .invalidExternalPurchaseToken,
                message: "external_purchase_token must be 1 to 4096 characters of base64url")
        }
    }

    /// A byte of a Stripe object id after its prefix: `A-Z a-z 0-9 _`.
    private static func isIDByte(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x5F
    }

    /// An http or https URL of at most 2048 printable characters.
    private static func checkURL(_ raw: String, field: String) throws(Refusal) {
        guard (1...2048).contains(raw.utf8.count), raw.utf8.allSatisfy({ (0x21...0x7E).contains($0) }),
            let parsed = URL(string: raw), parsed.scheme == "https" || parsed.scheme == "http", parsed.host != nil
        else { throw Refusal(code: .invalidValue, message: "\(field) must be an http or https URL") }
    }
}
