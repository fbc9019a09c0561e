import Hummingbird
import NIOCore
import SubLedgerReports
import SubLedgerUseCases

/// `/v1/admin/lookup/{order,transaction,token,account,app-transaction,purchase-token,stripe}/{id}` and
/// `/v1/admin/lookup/{store}/{id}` for the ids a later store declares (`StoreSupportID`): the support lookups
/// over HTTP, behind an admin key. `GET` only reads (Apple is asked for an order id, and for a transaction id the ledger lacks); `POST` on
/// an order or transaction also applies what Apple knows and the ledger lacks. `?bundle_id=` names the app when
/// several are configured. Refusals are `SupportError`s, answered by `HTTPErrorMapping`.
struct SupportController: Sendable {
    let lookup: SupportLookup

    func register(on group: RouterGroup<SubLedgerRequestContext>) {
        group.get("lookup/order/:id") { request, context in
            try await answer(request, context, SupportQuery.order(parsing:))
        }
        group.post("lookup/order/:id") { request, context in
            try await answer(request, context, SupportQuery.order(parsing:), apply: true)
        }
        group.get("lookup/transaction/:id") { request, context in
            try await answer(request, context, SupportQuery.transaction(parsing:))
        }
        group.post("lookup/transaction/:id") { request, context in
            try await answer(request, context, SupportQuery.transaction(parsing:), apply: true)
        }
        group.get("lookup/token/:id") { request, context in
            try await answer(request, context, SupportQuery.appAccountToken(parsing:))
        }
        group.get("lookup/account/:id") { request, context in
            try await answer(request, context, SupportQuery.account(parsing:))
        }
        group.get("lookup/purchase-token/:id") { request, context in
            try await answer(request, context, SupportQuery.purchaseToken(parsing:))
        }
        group.get("lookup/app-transaction/:id") { request, context in
            try await answer(request, context, SupportQuery.appTransaction(parsing:))
        }
        group.get("lookup/stripe/:id") { request, context in
            try await answer(request, context, SupportQuery.stripe(parsing:))
        }
        // Each later store whose registration declares ids support may look up by (`StoreSupportID`): Paddle's.
        for (store, ids) in Dictionary(grouping: lookup.storeIDs, by: \.store).sorted(by: {
            $0.key.rawValue < $1.key.rawValue
        }) {
            group.get(RouterPath("lookup/\(store.rawValue)/:id")) { request, context in
                try await answer(request, context) { raw throws(SupportError) in
                    try SupportQuery.store(parsing: raw, among: ids)
                }
            }
        }
    }

    private func answer(
        _ request: Request, _ context: SubLedgerRequestContext,
        _ parse: (String) throws(SupportError) -> SupportQuery, apply: Bool = false
    ) async throws -> Response {
        let query = try parse(try Self.id(context, parse))
        // `bundle_id` is a lookup's only parameter (`RouteQueryParameters`).
        let bundleID = request.uri.queryParameters.get("bundle_id").map { String($0) }
        let answer = try await lookup.lookUp(query, bundleID: bundleID, apply: apply)
        return Response(
            status: .ok, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: .init(string: answer.json)))
    }

    /// The `:id` parameter, percent-decoded; one that cannot be decoded is refused with the lookup's own code
    /// (`invalid_order_id`, ...), which its parser gives the raw text: a `%` is in no kind of id.
    private static func id(
        _ context: SubLedgerRequestContext, _ parse: (String) throws(SupportError) -> SupportQuery
    ) throws -> String {
        let raw = context.parameters.get("id") ?? ""
        return try context.pathParameter("id") { why in
            do {
                _ = try parse(raw)
            } catch let error as SupportError {
                return SupportError(error.code, why)
            } catch {}
            return SupportError(.invalidTransactionID, why)
        }
    }
}
