import Foundation
import Hummingbird
import SubLedgerCore
import SubLedgerUseCases

/// `POST /v1/purchases/google`: an account submits a Google Play purchase its app just made (or restored), a
/// `StoreSubmission` checked for shape here and verified by Google Play's port.
struct GooglePlayPurchasesController: Sendable {
    let apps: AppDirectory
    let stores: StorePorts

    /// The longest purchase token accepted (Google's are a few hundred characters).
    static let maximumTokenLength = 1024

    func register(on group: RouterGroup<SubLedgerRequestContext>) {
        group.post("purchases/google") { request, context in try await purchase(request, context) }
    }

    struct PurchaseRequest: JSONRequestBody {
        var account_id: String
        var package_name: String
        var product_id: String
        var purchase_token: String
        /// The order id the app saw (`GPA.…`); informative only, Google's answer is what is applied.
        var order_id: String?
        static let fields: Set<String> = ["account_id", "package_name", "product_id", "purchase_token", "order_id"]
    }

    func purchase(_ request: Request, _ context: SubLedgerRequestContext) async throws -> Representation.SubmissionBody
    {
        let app = try await apps.app(for: try context.requireKey())
        let body = try await request.decodeJSON(as: PurchaseRequest.self, context: context)
        let account = try parseAccountID(body.account_id)
        guard GooglePlayListing.isPackageName(body.package_name) else {
            throw APIError.badRequest(.invalidPackageName, "package_name must be an Android application id")
        }
        let productID = try RequestText.identifier(body.product_id, .productID, code: .invalidProductID)
        let token = body.purchase_token
        guard (1...Self.maximumTokenLength).contains(token.utf8.count), token.utf8.allSatisfy(Self.isTokenByte) else {
            throw APIError.badRequest(
                .invalidPurchaseToken,
                "purchase_token must be 1 to \(Self.maximumTokenLength) characters from A-Z a-z 0-9 . _ -")
        }
        if let orderID = body.order_id, !orderID.isEmpty {
            _ = try RequestText.identifier(orderID, .transactionID, code: .invalidOrderID)
        }
        let submission = StoreSubmission(
            account: account,
            artifact: .googlePlayPurchase(packageName: body.package_name, productID: productID, purchaseToken: token))
        let result = try await stores.submit(submission, app: app)
        return Representation.SubmissionBody(result, account: account, clientTransactionID: nil)
    }

    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
            true
        default:
            false
        }
    }
}
