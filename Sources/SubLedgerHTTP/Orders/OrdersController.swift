import Foundation
import Hummingbird
import SubLedgerCore
import SubLedgerUseCases

/// `POST /v1/orders`: an account is about to buy a product; the order id is the StoreKit app account token.
struct OrdersController: Sendable {
    let apps: AppDirectory
    let orders: Orders
    let now: @Sendable () -> Instant

    func register(on group: RouterGroup<SubLedgerRequestContext>) {
        group.post("orders") { request, context in try await create(request, context) }
    }

    struct CreateBody: JSONRequestBody {
        var account_id: String
        var product_id: String
        static let fields: Set<String> = ["account_id", "product_id"]
    }

    struct OrderBody: ResponseEncodable {
        var order_id: String
        /// Pass this to StoreKit (`appAccountToken`, or `applicationUsername` for StoreKit 1).
        var app_account_token: String
        var account_id: String
        var product_id: String
        var state: String
        var created_at: String?
    }

    func create(_ request: Request, _ context: SubLedgerRequestContext) async throws -> EditedResponse<OrderBody> {
        let app = try await apps.app(for: try context.requireKey())
        let body = try await request.decodeJSON(as: CreateBody.self, context: context)
        let account = try parseAccountID(body.account_id)
        guard app.definition.product(body.product_id) != nil else {
            let productID = try RequestText.identifier(body.product_id, .productID, code: .invalidProductID)
            throw APIError.unprocessable(.unknownProduct, "'\(productID)' is not a product of \(app.bundleID)")
        }
        let order = try await orders.create(account: account, productID: body.product_id, app: app, now: now())
        return EditedResponse(
            status: .created,
            response: OrderBody(
                order_id: order.id.rawValue, app_account_token: order.id.rawValue, account_id: order.account.rawValue,
                product_id: order.productID, state: order.state.rawValue,
                created_at: Representation.time(order.createdAt)))
    }
}
