import Foundation
import PostgresLibPQ
import SubLedgerCore

/// The audit trail of one original transaction: its chain(s) as stored now, and every input and effect.
public struct ChainAudit: Sendable, Hashable, Codable {
    /// The chain row as it stands (one per app and environment holding the original transaction id).
    public struct Chain: Sendable, Hashable, Codable {
        public var bundleID: String
        public var environment: String
        public var productID: String
        public var ownerAccountID: String?
        public var state: String
        public var expirationReason: String?
        public var expiresAt: Date?
        public var willAutoRenew: Bool?
        public var inBillingRetry: Bool
    }

    public var originalTransactionID: String
    public var chains: [Chain]
    public var events: [TimelineEvent]
}

extension Reports {
    /// The audit trail of `originalTransactionID`, oldest first: its transactions (at `purchase_date`),
    /// state changes (`changed_at`), ownership bindings (started and ended), ledger entries (`effective_at`),
    /// and the receipts and notifications those entries were applied from (`ledger_entries.receipt_id`,
    /// `notification_row_id`; at `received_at`).
    public static func original(
        _ originalTransactionID: String, on connection: PostgresConnection, scope: ReportScope
    ) throws -> ChainAudit {
        try scope.validate(on: connection)
        // Every environment is named so the primary key (app_id, environment, original_transaction_id) applies.
        let environments = AppStoreEnvironment.allCases.map(\.rawValue).joined(separator: ",")
        let parameters = scope.parameters + [originalTransactionID, environments] as [any PostgresEncodable]
        let chains = try connection.query(chainAuditChainsSQL, parameters).map { row in
            ChainAudit.Chain(
                bundleID: try row.decode(String.self, at: 0), environment: try row.decode(String.self, at: 1),
                productID: try row.decode(String.self, at: 2), ownerAccountID: try row.decode(String?.self, at: 3),
                state: try row.decode(String.self, at: 4), expirationReason: try row.decode(String?.self, at: 5),
                expiresAt: try row.decode(Date?.self, at: 6), willAutoRenew: try row.decode(Bool?.self, at: 7),
                inBillingRetry: try row.decode(Bool.self, at: 8))
        }
        guard !chains.isEmpty else {
            throw ReportError.notFound("no chain with original transaction id '\(originalTransactionID)' in the ledger")
        }
        let events = try connection.query(chainAuditEventsSQL, parameters).map(TimelineEvent.init(row:))
        return ChainAudit(
            originalTransactionID: originalTransactionID, chains: chains, events: TimelineEvent.chronological(events))
    }

    static let chainAuditKeys = """
        \(ReportScope.appsCTE),
        keys AS (
            SELECT c.app_id, s.bundle_id, c.environment, c.original_transaction_id
            FROM chains c JOIN scope s ON s.app_id = c.app_id
            WHERE c.original_transaction_id = $3 AND c.environment = ANY (string_to_array($4::text, ','))
              AND \(ReportScope.environmentCondition("c.environment")))
        """

    static let chainAuditChainsSQL = """
        WITH \(chainAuditKeys)
        SELECT k.bundle_id, c.environment, c.product_id, c.owner_account_id, c.state, c.expiration_reason, c.expires_at,
               c.will_auto_renew, c.in_billing_retry
        FROM keys k JOIN chains c USING (app_id, environment, original_transaction_id)
        ORDER BY 1, 2
        """

    static let chainAuditEventsSQL = """
        WITH \(chainAuditKeys),
        entries AS (
            SELECT e.*, k.bundle_id FROM ledger_entries e JOIN keys k USING (app_id, environment, original_transaction_id))
        SELECT \(TimelineEvent.columns) FROM (
            SELECT t.purchase_date AS at, 'transaction' AS category, k.bundle_id, t.environment, t.original_transaction_id,
                   t.transaction_id, t.product_id, t.account_id, t.source AS kind,
                   'revocation reason ' || t.revocation_reason AS reason, t.expires_date AS until,
                   nullif(concat_ws(', ', nullif(t.ownership_type, 'PURCHASED'),
                             'revoked ' || to_char(t.revocation_date AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')), '')
                       AS note,
                   NULL::bigint AS row_id
            FROM transactions t JOIN keys k USING (app_id, environment, original_transaction_id)
            UNION ALL
            SELECT x.changed_at, 'state_change', k.bundle_id, x.environment, x.original_transaction_id, NULL, x.product_id,
                   NULL, x.state, x.expiration_reason, NULL, x.previous_state, x.change_id
            FROM chain_state_changes x JOIN keys k USING (app_id, environment, original_transaction_id)
            UNION ALL
            SELECT b.started_at, 'binding_started', k.bundle_id, b.environment, b.original_transaction_id, b.transaction_id,
                   NULL, b.account_id, NULL, b.started_reason, NULL, b.from_account_id, b.binding_id
            FROM ownership_bindings b JOIN keys k USING (app_id, environment, original_transaction_id)
            UNION ALL
            SELECT b.ended_at, 'binding_ended', k.bundle_id, b.environment, b.original_transaction_id, NULL, NULL,
                   b.account_id, NULL, b.ended_reason, NULL, NULL, b.binding_id
            FROM ownership_bindings b JOIN keys k USING (app_id, environment, original_transaction_id)
            WHERE b.ended_at IS NOT NULL
            UNION ALL
            SELECT effective_at, 'ledger_entry', bundle_id, environment, original_transaction_id, transaction_id,
                   product_id, account_id, kind, reason, period_end,
                   nullif(concat_ws(', ', nullif(array_to_string(entitlement_ids, ', '), ''), 'credits ' || credits), ''),
                   entry_id
            FROM entries
            UNION ALL
            SELECT r.received_at, 'receipt', a.bundle_id, r.environment, NULL, NULL, NULL, r.account_id, r.kind,
                   r.status, NULL, NULL, r.receipt_id
            FROM receipts r JOIN apps a ON a.app_id = r.app_id
            WHERE r.receipt_id IN (SELECT receipt_id FROM entries WHERE receipt_id IS NOT NULL)
            UNION ALL
            SELECT n.received_at, 'notification', coalesce(a.bundle_id, ''), n.environment, NULL, NULL, NULL, NULL,
                   n.notification_type, n.subtype, NULL, n.notification_id, n.notification_row_id
            FROM notifications n LEFT JOIN apps a ON a.app_id = n.app_id
            WHERE n.notification_row_id IN (SELECT notification_row_id FROM entries WHERE notification_row_id IS NOT NULL)
        ) events
        """
}
