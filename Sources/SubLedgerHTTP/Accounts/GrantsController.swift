import Foundation
import HTTPTypes
import Hummingbird
import SubLedgerCore
import SubLedgerUseCases

/// Granted entitlements of an account (docs/guides/accounts.md, "Granted entitlements"): grant, list, revoke.
///
/// Who may call them is decided where every route's is, in `RoutePermissions`: admin and support keys.
struct GrantsController: Sendable {
    let grants: EntitlementGrants

    func register(on group: RouterGroup<SubLedgerRequestContext>) {
        group.post("accounts/:account_id/grants") { request, context in try await grant(request, context) }
        group.get("accounts/:account_id/grants") { request, context in try await list(request, context) }
        group.delete("accounts/:account_id/grants/:grant_id") { request, context in
            try await revoke(request, context)
        }
    }

    struct GrantRequest: JSONRequestBody {
        var bundle_id: String?
        var entitlement_id: String?
        var until: String?
        var duration: String?
        var reason: String?
        var environment: String?
        static let fields: Set<String> = ["bundle_id", "entitlement_id", "until", "duration", "reason", "environment"]
        static let refusesNull = true
    }

    struct GrantBody: ResponseEncodable {
        var grant_id: String
        var account_id: String
        var bundle_id: String
        var entitlement_id: String
        var environment: String
        var starts_at: String?
        var ends_at: String?
        var revoked_at: String?
        var reason: String
        var granted_by: String
        var revoked_by: String?

        init(_ record: EntitlementGrants.Record) {
            grant_id = record.grant.grantID
            account_id = record.grant.account.rawValue
            bundle_id = record.bundleID
            entitlement_id = record.grant.entitlementID
            environment = record.grant.environment.rawValue
            starts_at = Representation.time(record.grant.startsAt)
            ends_at = Representation.time(record.grant.endsAt)
            revoked_at = Representation.time(record.grant.revokedAt)
            reason = record.reason
            granted_by = record.grantedBy
            revoked_by = record.revokedBy
        }
    }

    struct GrantsBody: ResponseEncodable {
        var account_id: String
        var grants: [GrantBody]
    }

    static let idempotencyKeyHeader = HTTPField.Name("Idempotency-Key")!

    /// 201 with the new grant; 200 with the first one when the `Idempotency-Key` was used before for the account.
    func grant(_ request: Request, _ context: SubLedgerRequestContext) async throws -> EditedResponse<GrantBody> {
        let key = try context.requireKey()
        let account = try context.pathParameter("account_id") { APIError.badRequest(.invalidAccountID, $0) }
        let body = try await request.decodeJSON(as: GrantRequest.self, context: context)
        let result = try await grants.grant(
            EntitlementGrants.Request(
                bundleID: body.bundle_id, account: account, entitlementID: body.entitlement_id, until: body.until,
                duration: body.duration, reason: body.reason, environment: body.environment,
                idempotencyKey: request.headers[Self.idempotencyKeyHeader]),
            by: key.name)
        return EditedResponse(status: result.created ? .created : .ok, response: GrantBody(result.record))
    }

    /// The account's grants in the app `bundle_id` (query), oldest first.
    func list(_ request: Request, _ context: SubLedgerRequestContext) async throws -> GrantsBody {
        let account = try context.pathParameter("account_id") { APIError.badRequest(.invalidAccountID, $0) }
        let records = try await grants.grants(
            bundleID: request.uri.queryParameters.get("bundle_id"), account: account)
        return GrantsBody(account_id: account, grants: records.map(GrantBody.init))
    }

    /// Revokes the grant now; a revoked grant is answered as it is (200 both times).
    func revoke(_ request: Request, _ context: SubLedgerRequestContext) async throws -> GrantBody {
        let key = try context.requireKey()
        let account = try context.pathParameter("account_id") { APIError.badRequest(.invalidAccountID, $0) }
        let grantID = try context.pathParameter("grant_id") { GrantError(.invalidGrantID, $0) }
        return GrantBody(
            try await grants.revoke(
                bundleID: request.uri.queryParameters.get("bundle_id"), account: account, grantID: grantID,
                by: key.name))
    }
}
