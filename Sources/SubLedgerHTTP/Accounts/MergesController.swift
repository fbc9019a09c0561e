import Hummingbird
import SubLedgerCore
import SubLedgerUseCases

/// Account merges and aliases (docs/guides/accounts.md, "Merging accounts").
///
/// Who may call them is decided where every route's is, in `RoutePermissions`: admin and support keys.
struct MergesController: Sendable {
    let merges: AccountMerges

    func register(on group: RouterGroup<SubLedgerRequestContext>) {
        group.post("accounts/:account_id/merge") { request, context in try await merge(request, context) }
        group.get("accounts/:account_id/aliases") { request, context in try await aliases(request, context) }
    }

    struct MergeRequest: JSONRequestBody {
        var bundle_id: String?
        var from: String?
        static let fields: Set<String> = ["bundle_id", "from"]
        static let refusesNull = true
    }

    struct ChainBody: ResponseEncodable {
        var environment: String
        var original_transaction_id: String
    }

    struct MergeBody: ResponseEncodable {
        var account_id: String
        var from: String
        var bundle_id: String
        /// False when `from` had been merged into this account before (nothing moved this time).
        var merged: Bool
        var chains: [ChainBody]
        var grants: [String]
        var credits: Int64
    }

    struct AliasBody: ResponseEncodable {
        var account_id: String
        var merged_by: String
        var merged_at: String?
    }

    struct AliasesBody: ResponseEncodable {
        var account_id: String
        var aliases: [AliasBody]
    }

    /// 200 with what moved.
    func merge(_ request: Request, _ context: SubLedgerRequestContext) async throws -> MergeBody {
        let key = try context.requireKey()
        let account = try context.pathParameter("account_id") { APIError.badRequest(.invalidAccountID, $0) }
        let body = try await request.decodeJSON(as: MergeRequest.self, context: context)
        let moves = try await merges.merge(bundleID: body.bundle_id, into: account, from: body.from, by: key.name)
        return MergeBody(
            account_id: account, from: body.from ?? "", bundle_id: body.bundle_id ?? "", merged: moves.merged,
            chains: moves.chains.map {
                ChainBody(environment: $0.environment.rawValue, original_transaction_id: $0.chainID)
            },
            grants: moves.grants, credits: moves.credits)
    }

    /// The accounts merged into this one in the app `bundle_id` (query), oldest first.
    func aliases(_ request: Request, _ context: SubLedgerRequestContext) async throws -> AliasesBody {
        let account = try context.pathParameter("account_id") { APIError.badRequest(.invalidAccountID, $0) }
        let aliases = try await merges.aliases(bundleID: request.uri.queryParameters.get("bundle_id"), account: account)
        return AliasesBody(
            account_id: account,
            aliases: aliases.map {
                AliasBody(
                    account_id: $0.account.rawValue, merged_by: $0.mergedBy,
                    merged_at: Representation.time($0.mergedAt))
            })
    }
}
