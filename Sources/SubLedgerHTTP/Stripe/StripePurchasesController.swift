import Foundation
import Hummingbird
import SubLedgerCore
import SubLedgerUseCases

/// `POST /v1/purchases/stripe`: an account's app server submits the Checkout Session its customer just paid (its
/// success page's `{CHECKOUT_SESSION_ID}`), a `StoreSubmission` checked for shape here and verified by Stripe's
/// port. The webhook applies the same subscription; this credits the account without waiting for it.
struct StripePurchasesController: Sendable {
    let apps: AppDirectory
    let stores: StorePorts

    func register(on group: RouterGroup<SubLedgerRequestContext>) {
        group.post("purchases/stripe") { request, context in try await purchase(request, context) }
    }

    struct PurchaseRequest: JSONRequestBody {
        var account_id: String
        var checkout_session_id: String
        static let fields: Set<String> = ["account_id", "checkout_session_id"]
    }

    func purchase(_ request: Request, _ context: SubLedgerRequestContext) async throws -> Representation.SubmissionBody
    {
        let app = try await apps.app(for: try context.requireKey())
        let body = try await request.decodeJSON(as: PurchaseRequest.self, context: context)
        let account = try parseAccountID(body.account_id)
        let session = try Self.stripeID(body.checkout_session_id, field: "checkout_session_id", prefix: "cs_")
        let submission = StoreSubmission(account: account, artifact: .stripeCheckout(sessionID: session))
        let result = try await stores.submit(submission, app: app)
        return Representation.SubmissionBody(result, account: account, clientTransactionID: nil)
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
}
