import Hummingbird
import SubLedgerCore
import SubLedgerUseCases

/// `POST /v1/app-transactions`: an account shows the app's signed `AppTransaction` and SubLedger records that
/// it owns that purchase of the app (`AppTransactionClaims`).
struct AppTransactionsController: Sendable {
    let apps: AppDirectory
    /// The App Store's claims; `nil` when this process is not configured for it.
    let claims: (any AppTransactionClaiming)?

    func register(on group: RouterGroup<SubLedgerRequestContext>) {
        group.post("app-transactions") { request, context in try await claim(request, context) }
    }

    struct ClaimRequest: JSONRequestBody {
        var account_id: String
        var signed_app_transaction: String
        static let fields: Set<String> = ["account_id", "signed_app_transaction"]
    }

    struct ClaimBody: ResponseEncodable {
        var app_transaction_id: String
        var environment: String
        var account_id: String
        /// `true` when this call made the account the owner; `false` when it already was.
        var claimed: Bool
        /// The account that owned it before this call, when another did.
        var previous_account_id: String?
        var original_purchase_date: String?
        var preorder_date: String?
        var original_application_version: String?
        var claimed_at: String?
    }

    func claim(_ request: Request, _ context: SubLedgerRequestContext) async throws -> ClaimBody {
        let app = try await apps.app(for: try context.requireKey())
        let body = try await request.decodeJSON(as: ClaimRequest.self, context: context)
        let account = try parseAccountID(body.account_id)
        let token = body.signed_app_transaction.trimmingCharacters(in: .whitespacesAndNewlines)
        guard token.utf8.count <= 65_536, token.split(separator: ".", omittingEmptySubsequences: false).count == 3,
            token.utf8.allSatisfy(SubmissionsController.isJWSByte)
        else {
            throw APIError.badRequest(
                .malformedJWS, "signed_app_transaction must be a JWS (three dot-separated parts)")
        }
        guard let claims else {
            throw IngestionError(.appMisconfigured, "this server is not configured for the App Store")
        }
        let outcome = try await claims.claim(token, account: account, app: app)
        let claim = outcome.claim
        var previous: AccountID?
        if case .claimed(_, let before) = outcome { previous = before }
        return ClaimBody(
            app_transaction_id: claim.appTransactionID, environment: claim.environment.rawValue,
            account_id: claim.account.rawValue,
            claimed: { if case .claimed = outcome { true } else { false } }(),
            previous_account_id: previous?.rawValue,
            original_purchase_date: Representation.time(claim.originalPurchaseDate),
            preorder_date: Representation.time(claim.preorderDate),
            original_application_version: claim.originalApplicationVersion,
            claimed_at: Representation.time(claim.claimedAt))
    }
}
