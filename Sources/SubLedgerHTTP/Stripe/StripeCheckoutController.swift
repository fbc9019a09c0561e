import Foundation
import Hummingbird
import SubLedgerCore
import SubLedgerUseCases

/// `POST /v1/checkout/stripe`: an account starts a web purchase. SubLedger records the order and creates its Stripe
/// Checkout Session (the order as `client_reference_id` and in the metadata of the subscription or, for a one-time
/// product, the payment intent); the app sends the customer to the session's `url`, and Stripe's webhook credits the
/// account once paid.
struct StripeCheckoutController: Sendable {
    let apps: AppDirectory
    /// Stripe's web checkout (`StoreRegistration.webCheckout`); `nil` when this process has no Stripe registered.
    let checkout: (any WebCheckout)?
    let now: @Sendable () -> Instant

    func register(on group: RouterGroup<SubLedgerRequestContext>) {
        group.post("checkout/stripe") { request, context in try await create(request, context) }
    }

    struct CreateBody: JSONRequestBody {
        var account_id: String
        var product_id: String
        var price: String
        var success_url: String
        var cancel_url: String?
        var customer: String?
        var trial_period_days: Int?
        /// The external purchase token StoreKit gave the iOS app that linked out to this purchase.
        var external_purchase_token: String?
        static let fields: Set<String> = [
            "account_id", "product_id", "price", "success_url", "cancel_url", "customer", "trial_period_days",
            "external_purchase_token",
        ]
    }

    struct CheckoutBody: ResponseEncodable {
        var order_id: String
        var account_id: String
        var product_id: String
        var checkout_session_id: String
        /// `subscription` (an auto-renewable product) or `payment` (a one-time purchase).
        var mode: String
        /// Where to send the customer.
        var url: String?
    }

    func create(_ request: Request, _ context: SubLedgerRequestContext) async throws -> EditedResponse<CheckoutBody> {
        let app = try await apps.app(for: try context.requireKey())
        let body = try await request.decodeJSON(as: CreateBody.self, context: context)
        let account = try parseAccountID(body.account_id)
        let productID = try RequestText.identifier(body.product_id, .productID, code: .invalidProductID)
        let price = try Self.stripeID(body.price, field: "price", prefix: "price_")
        let customer = try body.customer.map { try Self.stripeID($0, field: "customer", prefix: "cus_") }
        let successURL = try Self.url(body.success_url, field: "success_url")
        let cancelURL = try body.cancel_url.map { try Self.url($0, field: "cancel_url") }
        if let days = body.trial_period_days, !(1...730).contains(days) {
            throw APIError.badRequest(.invalidValue, "trial_period_days must be between 1 and 730")
        }
        // The checker bounds, decodes and checks the token; this refuses text no token could be before it does.
        if let token = body.external_purchase_token,
            !(1...4096).contains(token.utf8.count) || token.utf8.contains(0)
        {
            throw APIError.badRequest(
                .invalidExternalPurchaseToken, "external_purchase_token must be 1 to 4096 characters of base64url")
        }
        guard let checkout else {
            throw IngestionError(.appMisconfigured, "this process has no port for Stripe")
        }
        let started: WebCheckoutStarted
        do {
            started = try await checkout.start(
                .init(
                    account: account, productID: productID, price: price, successURL: successURL,
                    cancelURL: cancelURL, customer: customer, trialPeriodDays: body.trial_period_days,
                    externalPurchaseToken: body.external_purchase_token),
                app: app, now: now())
        } catch let refusal as WebCheckoutRefusal {
            throw APIError(refusal)
        }
        return EditedResponse(
            status: .created,
            response: CheckoutBody(
                order_id: started.order.id.rawValue, account_id: started.order.account.rawValue,
                product_id: started.order.productID, checkout_session_id: started.sessionID, mode: started.mode,
                url: started.url))
    }

    /// A Stripe object id: `prefix` then 1 to 250 of `A-Z a-z 0-9 _`.
    static func stripeID(_ raw: String, field: String, prefix: String) throws -> String {
        let rest = raw.utf8.dropFirst(prefix.utf8.count)
        guard raw.hasPrefix(prefix), (1...250).contains(rest.count),
            rest.allSatisfy({
                (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || $0 == 0x5F
            })
        else { throw APIError.badRequest(.invalidValue, "\(field) must be a Stripe id starting with \(prefix)") }
        return raw
    }

    /// An http or https URL of at most 2048 printable characters.
    static func url(_ raw: String, field: String) throws -> String {
        guard (1...2048).contains(raw.utf8.count), raw.utf8.allSatisfy({ (0x21...0x7E).contains($0) }),
            let parsed = URL(string: raw), parsed.scheme == "https" || parsed.scheme == "http", parsed.host != nil
        else { throw APIError.badRequest(.invalidValue, "\(field) must be an http or https URL") }
        return raw
    }
}
