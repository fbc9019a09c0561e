import Foundation
import Hummingbird
import SubLedgerCore
import SubLedgerUseCases

/// `POST /v1/checkout/{store}` for every registered store that offers a web checkout
/// (`StoreRegistration.checkoutForm`): an account starts a web purchase. SubLedger records the order and asks the
/// store for a hosted checkout that carries it (Stripe: a Checkout Session with the order as its
/// `client_reference_id`; Paddle: a transaction with the order in its `custom_data`); the app sends the customer to
/// the answer's `url`, and the store's signed pushes credit the account once paid.
///
/// The body is the store's form: `account_id`, `product_id` and the fields the form takes, any other refused with 400
/// `unknown_field`; the store checks the values (`WebCheckout.start`).
struct WebCheckoutController: Sendable {
    let store: Store
    let form: WebCheckoutForm
    let apps: AppDirectory
    let checkout: any WebCheckout
    let now: @Sendable () -> Instant

    /// A controller for each store of `registry` with a checkout this process built (`checkouts`).
    static func all(
        in registry: StoreRegistry, checkouts: [Store: any WebCheckout], apps: AppDirectory,
        now: @escaping @Sendable () -> Instant
    ) -> [WebCheckoutController] {
        registry.stores.compactMap { store in
            guard let form = registry[store]?.checkoutForm, let checkout = checkouts[store] else { return nil }
            return WebCheckoutController(store: store, form: form, apps: apps, checkout: checkout, now: now)
        }
    }

    func register(on group: RouterGroup<SubLedgerRequestContext>) {
        group.post(RouterPath("checkout/\(store.rawValue)")) { request, context in try await create(request, context) }
    }

    /// Every field any store's form takes; the one at hand's are checked against its form when decoded.
    struct CreateBody: Decodable {
        var account_id: String
        var product_id: String
        var price: String?
        var success_url: String?
        var cancel_url: String?
        var customer: String?
        var trial_period_days: Int?
        var external_purchase_token: String?

        /// The key of the decoder's user info that holds the form's field names.
        static let fieldsKey = CodingUserInfoKey(rawValue: "subledger.checkout.fields")!

        enum CodingKeys: String, CodingKey {
            case account_id, product_id, price, success_url, cancel_url, customer, trial_period_days
            case external_purchase_token
        }

        init(from decoder: any Decoder) throws {
            let fields = decoder.userInfo[Self.fieldsKey] as? Set<String> ?? []
            let keys = try decoder.container(keyedBy: BodyKey.self).allKeys.map(\.stringValue)
            if let unknown = keys.filter({ !fields.contains($0) }).min() {
                throw APIError.badRequest(
                    .unknownField,
                    "unknown field '\(unknown.prefix(64))'; allowed: \(fields.sorted().joined(separator: ", "))")
            }
            let container = try decoder.container(keyedBy: CodingKeys.self)
            account_id = try container.decode(String.self, forKey: .account_id)
            product_id = try container.decode(String.self, forKey: .product_id)
            price = try container.decodeIfPresent(String.self, forKey: .price)
            success_url = try container.decodeIfPresent(String.self, forKey: .success_url)
            cancel_url = try container.decodeIfPresent(String.self, forKey: .cancel_url)
            customer = try container.decodeIfPresent(String.self, forKey: .customer)
            trial_period_days = try container.decodeIfPresent(Int.self, forKey: .trial_period_days)
            external_purchase_token = try container.decodeIfPresent(String.self, forKey: .external_purchase_token)
        }

        /// The value of `field` as given, `nil` when left out.
        func given(_ field: WebCheckoutForm.Field) -> Bool {
            switch field {
            case .price: price != nil
            case .successURL: success_url != nil
            case .cancelURL: cancel_url != nil
            case .customer: customer != nil
            case .trialPeriodDays: trial_period_days != nil
            case .externalPurchaseToken: external_purchase_token != nil
            }
        }
    }

    /// The answer: the order, and the store's session under the name the store's form gives it.
    struct CheckoutBody: ResponseEncodable {
        var started: WebCheckoutStarted
        var sessionField: String

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: BodyKey.self)
            try container.encode(started.order.id.rawValue, forKey: BodyKey("order_id"))
            try container.encode(started.order.account.rawValue, forKey: BodyKey("account_id"))
            try container.encode(started.order.productID, forKey: BodyKey("product_id"))
            try container.encode(started.sessionID, forKey: BodyKey(sessionField))
            // `subscription` (an auto-renewable product) or `payment` (a one-time purchase).
            try container.encode(started.mode, forKey: BodyKey("mode"))
            try container.encodeIfPresent(started.url, forKey: BodyKey("url"))
        }
    }

    func create(_ request: Request, _ context: SubLedgerRequestContext) async throws -> EditedResponse<CheckoutBody> {
        let app = try await apps.app(for: try context.requireKey())
        let body = try await decode(request, context)
        let account = try parseAccountID(body.account_id)
        let productID = try RequestText.identifier(body.product_id, .productID, code: .invalidProductID)
        let started: WebCheckoutStarted
        do {
            started = try await checkout.start(
                .init(
                    account: account, productID: productID, price: body.price ?? "",
                    successURL: body.success_url ?? "", cancelURL: body.cancel_url, customer: body.customer,
                    trialPeriodDays: body.trial_period_days, externalPurchaseToken: body.external_purchase_token),
                app: app, now: now())
        } catch let refusal as WebCheckoutRefusal {
            throw APIError(refusal)
        }
        return EditedResponse(
            status: .created, response: CheckoutBody(started: started, sessionField: form.sessionField))
    }

    /// The body read as the store's form: 400 `unknown_field` for a field it does not take, 400 `malformed_json`
    /// for one it requires that is missing or any that does not decode.
    func decode(_ request: Request, _ context: SubLedgerRequestContext) async throws -> CreateBody {
        let buffer = try await request.collectBody(context: context)
        try RequestText.checkBody(buffer)
        let decoder = JSONDecoder()
        decoder.userInfo[CreateBody.fieldsKey] = form.fieldNames
        let body: CreateBody
        do {
            body = try decoder.decode(CreateBody.self, from: Data(buffer: buffer))
        } catch let error as DecodingError {
            throw APIError.badRequest(.malformedJSON, ErrorMiddleware<BasicRequestContext>.describe(error))
        }
        if let missing = form.required.filter({ !body.given($0) }).map(\.rawValue).min() {
            throw APIError.badRequest(.malformedJSON, "missing field '\(missing)'")
        }
        return body
    }
}
