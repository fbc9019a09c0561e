import Foundation
import PostgresLibPQ

/// Everything that happened to one account: its ledger entries, ownership bindings and entitlement changes.
public struct AccountTimeline: Sendable, Hashable, Codable {
    public var accountID: String
    /// The apps that know the account (one unless the scope spans apps using the same id).
    public var bundleIDs: [String]
    public var events: [TimelineEvent]
}

extension Reports {
    /// The timeline of `accountID`, oldest first: every `ledger_entries` row of the account (`ledger_entry`),
    /// for each entry that carries entitlements an `entitlement_gained` (grant, extend, restore, transfer_in)
    /// or `entitlement_lost` (revoke, transfer_out) at its `effective_at`, and every ownership binding of the
    /// account as `binding_started` (at `started_at`) and, once ended, `binding_ended` (at `ended_at`).
    public static func account(_ accountID: String, on connection: PostgresConnection, scope: ReportScope) throws
        -> AccountTimeline
    {
        try scope.validate(on: connection)
        let parameters = scope.parameters + [accountID] as [any PostgresEncodable]
        let apps = try connection.query(accountAppsSQL, [scope.bundleID, accountID]).map { try $0.decode(String.self, at: 0) }
        guard !apps.isEmpty else { throw ReportError.notFound("no account '\(accountID)' in the ledger") }
        let events = try connection.query(accountTimelineSQL, parameters).map(TimelineEvent.init(row:))
        return AccountTimeline(accountID: accountID, bundleIDs: apps, events: TimelineEvent.chronological(events))
    }

    static let accountAppsSQL = """
        WITH \(ReportScope.appsCTE)
        SELECT s.bundle_id FROM accounts a JOIN scope s ON s.app_id = a.app_id
        WHERE a.account_id = $2
        ORDER BY 1
        """

    static let accountTimelineSQL = """
        WITH \(ReportScope.appsCTE),
        account_apps AS (
            SELECT a.app_id, s.bundle_id FROM accounts a JOIN scope s ON s.app_id = a.app_id WHERE a.account_id = $3),
        entries AS (
            SELECT e.*, aa.bundle_id FROM ledger_entries e JOIN account_apps aa ON aa.app_id = e.app_id
            WHERE e.account_id = $3 AND \(ReportScope.environmentCondition("e.environment"))),
        bindings AS (
            SELECT b.*, aa.bundle_id FROM ownership_bindings b JOIN account_apps aa ON aa.app_id = b.app_id
            WHERE b.account_id = $3 AND \(ReportScope.environmentCondition("b.environment")))
        SELECT \(TimelineEvent.columns) FROM (
            SELECT effective_at AS at, 'ledger_entry' AS category, bundle_id, environment, original_transaction_id,
                   transaction_id, product_id, account_id, kind, reason, period_end AS until,
                   nullif(concat_ws(', ', nullif(array_to_string(entitlement_ids, ', '), ''), 'credits ' || credits), '')
                       AS note,
                   entry_id AS row_id
            FROM entries
            UNION ALL
            SELECT effective_at,
                   CASE WHEN kind IN ('revoke', 'transfer_out') THEN 'entitlement_lost' ELSE 'entitlement_gained' END,
                   bundle_id, environment, original_transaction_id, transaction_id, product_id, account_id, kind, reason,
                   CASE WHEN kind IN ('revoke', 'transfer_out') THEN NULL ELSE period_end END,
                   array_to_string(entitlement_ids, ', '), entry_id
            FROM entries
            WHERE cardinality(entitlement_ids) > 0
              AND kind IN ('grant', 'extend', 'restore', 'transfer_in', 'revoke', 'transfer_out')
            UNION ALL
            SELECT started_at, 'binding_started', bundle_id, environment, original_transaction_id, transaction_id, NULL,
                   account_id, NULL, started_reason, NULL, from_account_id, binding_id
            FROM bindings
            UNION ALL
            SELECT ended_at, 'binding_ended', bundle_id, environment, original_transaction_id, NULL, NULL, account_id,
                   NULL, ended_reason, NULL, NULL, binding_id
            FROM bindings WHERE ended_at IS NOT NULL
        ) events
        """
}
