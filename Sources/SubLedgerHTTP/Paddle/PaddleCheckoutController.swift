import Foundation
import Hummingbird
import SubLedgerCore
import SubLedgerUseCases

/// `POST /v1/checkout/paddle`: the app server starts a web purchase through Paddle for one of its accounts. SubLedger
/// records the order and creates a Paddle transaction of the price with the order in its `custom_data`; the customer
/// pays it at Paddle's checkout (the answer's `url`, the app's default payment link, or Paddle.js given
/// `transaction_id`), and Paddle's notifications (`/v1/notifications/paddle`) credit the account. The catalog sells the
/// product with `store: paddle`, named by its Paddle product id (`pro_…`).
struct PaddleCheckoutController: Sendable {
    let apps: AppDirectory
    let checkout: (any WebCheckout)?
    let now: @Sendable () -> Instant

    func register(on group: RouterGroup<SubLedgerRequestContext>) {
        group.post("checkout/paddle") { request, context in try await create(request, context) }
    }

    struct CreateBody: JSONRequestBody {
        var account_id: String
        var product_id: String
        var price: String
        var customer: String?
        static let fields: Set<String> = ["account_id", "product_id", "price", "customer"]
    }

    struct CheckoutBody: ResponseEncodable {
        var order_id: String
        var account_id: String
        var product_id: String
        var transaction_id: String
        var mode: String
        var url: String?
    }

    func create(_ request: Request, _ context: SubLedgerRequestContext) async throws -> EditedResponse<CheckoutBody> {
        let app = try await apps.app(for: try context.requireKey())
        let body = try await request.decodeJSON(as: CreateBody.self, context: context)
        let account = try parseAccountID(body.account_id)
        let productID = try RequestText.identifier(body.product_id, .productID, code: .invalidProductID)
        let price = try Self.paddleID(body.price, field: "price", prefix: "pri_")
        let customer = try body.customer.map { try Self.paddleID($0, field: "customer", prefix: "ctm_") }
        guard let checkout else {
            throw IngestionError(.appMisconfigured, "this process has no port for Paddle")
        }
        let started: WebCheckoutStarted
        do {
            started = try await checkout.start(
                .init(account: account, productID: productID, price: price, successURL: "", customer: customer),
                app: app, now: now())
        } catch let refusal as WebCheckoutRefusal {
            throw APIError(refusal)
        }
        return EditedResponse(
            status: .created,
            response: CheckoutBody(
                order_id: started.order.id.rawValue, account_id: started.order.account.rawValue,
                product_id: started.order.productID, transaction_id: started.sessionID, mode: started.mode,
                url: started.url))
    }

    /// A Paddle id: `prefix` and 1 to 60 lowercase letters and digits (Paddle's are 26).
    static func paddleID(_ raw: String, field: String, prefix: String) throws -> String {
        let rest = raw.utf8.dropFirst(prefix.utf8.count)
        guard raw.hasPrefix(prefix), (1...60).contains(rest.count),
            rest.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x7A).contains($0) })
        else { throw APIError.badRequest(.invalidValue, "\(field) must be a Paddle id starting with \(prefix)") }
        return raw
    }
}
