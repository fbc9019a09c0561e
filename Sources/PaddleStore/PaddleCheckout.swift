import Paddle
import PaddleClients
import SubLedgerCore
import SubLedgerStore
import SubLedgerUseCases

/// Paddle's web checkout: the order recorded, then a Paddle transaction of the asked price created with the order and
/// the app in its `custom_data`, which Paddle's checkout (the app's default payment link, or Paddle.js given the
/// transaction id) collects. Paddle sends the `custom_data` back with the transaction and the subscription it makes,
/// so each later notification names the buyer's order, whoever pays.
public struct PaddleCheckout: WebCheckout {
    let orders: Orders
    let gateway: PaddleGateway

    public init(orders: Orders, gateway: PaddleGateway) {
        self.orders = orders
        self.gateway = gateway
    }

    public func start(_ request: WebCheckoutRequest, app: StoredApp, now: Instant) async throws -> WebCheckoutStarted {
        // Paddle's ids: the prefix and lowercase letters and digits (26 of them today).
        let isIDByte: (UInt8) -> Bool = { (0x30...0x39).contains($0) || (0x61...0x7A).contains($0) }
        try WebCheckoutRefusal.checkID(
            request.price, field: "price", prefix: "pri_", maxLength: 60, storeName: "Paddle", allowed: isIDByte)
        if let customer = request.customer {
            try WebCheckoutRefusal.checkID(
                customer, field: "customer", prefix: "ctm_", maxLength: 60, storeName: "Paddle", allowed: isIDByte)
        }
        guard let product = app.definition.product(request.productID), product.store == .paddle else {
            throw WebCheckoutRefusal(
                code: .productNotSold,
                message: "'\(request.productID)' is not a product \(app.bundleID) sells through Paddle")
        }
        let isSubscription = product.type == .autoRenewable
        if request.trialPeriodDays != nil {
            throw WebCheckoutRefusal(
                code: .trialNotOffered, message: "a Paddle price states its own trial: give the price that has it")
        }
        if request.externalPurchaseToken != nil {
            throw WebCheckoutRefusal(
                code: .externalPurchaseNotReported,
                message: "Paddle sells as the merchant of record: SubLedger reports no external purchase of its sales")
        }
        let client = try await gateway.client(for: app)
        let price: PaddlePrice
        do {
            price = try await client.price(request.price)
        } catch {
            if error.code == .notFound {
                throw WebCheckoutRefusal(code: .priceMismatch, message: "Paddle has no such price")
            }
            throw IngestionError(error)
        }
        guard price.productID == request.productID else {
            throw WebCheckoutRefusal(
                code: .priceMismatch, message: "the price is not a price of '\(request.productID)'")
        }
        if isSubscription != (price.billingCycle != nil) {
            throw WebCheckoutRefusal(
                code: .priceMismatch,
                message:
                    "the price is not a \(isSubscription ? "recurring" : "one-time") price of '\(request.productID)'")
        }
        let order = try await orders.create(
            account: request.account, productID: request.productID, app: app, now: now)
        do {
            let created = try await client.createTransaction(
                priceID: request.price,
                customData: [
                    (PaddleTransactionReading.orderCustomDataKey, order.id.rawValue),
                    (PaddleTransactionReading.appCustomDataKey, app.bundleID),
                ], customerID: request.customer)
            return WebCheckoutStarted(
                order: order, sessionID: created.id, mode: isSubscription ? "subscription" : "payment",
                url: created.checkoutURL)
        } catch {
            throw IngestionError(error)
        }
    }
}
