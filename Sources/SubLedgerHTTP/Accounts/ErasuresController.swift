import HTTPTypes
import Hummingbird
import SubLedgerCore
import SubLedgerUseCases

/// Erasing an account (docs/guides/accounts.md, "Erasing an account"): `DELETE /v1/accounts/{account_id}`.
///
/// Who may call it is decided where every route's is, in `RoutePermissions`: admin keys only.
struct ErasuresController: Sendable {
    let erasures: AccountErasures

    /// The response header that hands the pseudonym to the audit log, which records it instead of the erased id.
    static let pseudonymHeader = HTTPField.Name("SubLedger-Erased-As")!

    func register(on group: RouterGroup<SubLedgerRequestContext>) {
        group.delete("accounts/:account_id") { request, context in try await erase(request, context) }
    }

    struct ErasureBody: ResponseEncodable {
        var bundle_id: String
        /// The name the account's rows carry from now on; the erased id is stored nowhere.
        var pseudonym: String
        /// Rows rewritten or removed, by what they are.
        var erased: [String: Int64]
        /// The accounts merged into this one, erased with it.
        var aliases: Int64
    }

    /// 200 with what was erased.
    func erase(_ request: Request, _ context: SubLedgerRequestContext) async throws -> Response {
        let key = try context.requireKey()
        let account = try context.pathParameter("account_id") { APIError.badRequest(.invalidAccountID, $0) }
        let bundleID = request.uri.queryParameters.get("bundle_id").map { String($0) }
        let erasure = try await erasures.erase(bundleID: bundleID, account: account, by: key.name)
        let body = ErasureBody(
            bundle_id: bundleID ?? "", pseudonym: erasure.pseudonym, erased: erasure.counts, aliases: erasure.aliases)
        var response = try body.response(from: request, context: context)
        response.headers[Self.pseudonymHeader] = erasure.pseudonym
        return response
    }
}
