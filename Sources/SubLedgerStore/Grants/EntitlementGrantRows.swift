import Foundation
import PostgresLibPQ
import SubLedgerCore

/// The `entitlement_grants` table (schema step 44) as the entitlement read sees it.
enum EntitlementGrantRows {
    /// A subquery of one row and one column, `list`: the grants of `account` that give access at `instant`, as a
    /// JSON array (NULL when there are none). It names the account, so on a Citus cluster it runs on the account's
    /// shard with the read model's periods.
    static func current(of account: AccountID, appID: Int64, at instant: Instant) -> PostgresQuery {
        """
        (SELECT json_agg(json_build_object('grant_id', g.grant_id::text, 'entitlement_id', g.entitlement_id,
                'environment', g.environment, 'starts_at', \(milliseconds("g.starts_at")),
                'ends_at', \(milliseconds("g.ends_at")), 'revoked_at', \(milliseconds("g.revoked_at")))
                ORDER BY g.grant_id)::text AS list
         FROM entitlement_grants g
         WHERE g.app_id = \(appID) AND g.account_id = \(account.rawValue)
           AND g.starts_at <= \(timestamp(instant)) AND g.ends_at > \(timestamp(instant))
           AND (g.revoked_at IS NULL OR g.revoked_at > \(timestamp(instant))))
        """
    }

    /// One grant of `current`'s list.
    private struct Listed: Decodable {
        var grant_id: String
        var entitlement_id: String
        var environment: String
        var starts_at: Int64
        var ends_at: Int64
        var revoked_at: Int64?
    }

    /// `current`'s list as grants of `account`.
    static func parseCurrent(_ list: String, account: AccountID) throws -> [EntitlementGrant] {
        try StoreJSON.decode([Listed].self, from: list, what: "grant list").map { listed in
            EntitlementGrant(
                grantID: listed.grant_id, account: account, entitlementID: listed.entitlement_id,
                environment: try StoreEnvironment.stored(listed.environment),
                startsAt: Instant(millisecondsSince1970: listed.starts_at),
                endsAt: Instant(millisecondsSince1970: listed.ends_at),
                revokedAt: listed.revoked_at.map(Instant.init(millisecondsSince1970:)))
        }
    }
}
