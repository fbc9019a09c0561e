import PostgresLibPQ
import SubLedgerCore

extension ReportStore {
    /// The bundle ids of the scope's apps that know `accountID`, sorted.
    func accountApps(_ accountID: String) throws -> [String] {
        try run(
            """
            WITH \(apps)
            SELECT s.bundle_id FROM accounts a JOIN scope s ON s.app_id = a.app_id
            WHERE a.account_id = \(accountID)
            ORDER BY 1
            """
        ).map { try $0.decode(String.self, at: 0) }
    }

    /// Everything recorded about `accountID`, in no particular order: every `ledger_entries` row of the
    /// account (`ledger_entry`), for each entry that carries entitlements an `entitlement_gained` (grant,
    /// extend, restore, transfer_in, and a grant by hand: manual_grant) or `entitlement_lost` (revoke,
    /// transfer_out, and a grant's revocation: manual_revoke) at its `effective_at`, and
    /// every ownership binding of the account as `binding_started` (at `started_at`) and, once ended,
    /// `binding_ended` (at `ended_at`).
    func accountEvents(_ accountID: String) throws -> [TimelineEvent] {
        try run(accountEvents(of: accountID)).map(TimelineEvent.init(row:))
    }

    /// The `chains` rows holding `originalTransactionID` (one per app and environment), by bundle id and
    /// environment.
    func auditedChains(_ originalTransactionID: String) throws -> [ChainAudit.Chain] {
        try run(
            """
            WITH \(chainKeys(originalTransactionID))
            SELECT k.bundle_id, c.environment, c.product_id, c.owner_account_id, c.state, c.expiration_reason, c.expires_at,
                   c.will_auto_renew, c.in_billing_retry
            FROM keys k JOIN chains c USING (app_id, environment, original_transaction_id)
            ORDER BY 1, 2
            """
        ).map { row in
            ChainAudit.Chain(
                bundleID: try row.decode(String.self, at: 0), environment: try row.decode(String.self, at: 1),
                productID: try row.decode(String.self, at: 2), ownerAccountID: try row.decode(String?.self, at: 3),
                state: try row.decode(String.self, at: 4), expirationReason: try row.decode(String?.self, at: 5),
                expiresAt: try row.optionalInstant(at: 6), willAutoRenew: try row.decode(Bool?.self, at: 7),
                inBillingRetry: try row.decode(Bool.self, at: 8))
        }
    }

    /// Everything recorded about the chains holding `originalTransactionID`, in no particular order: their
    /// transactions (at `purchase_date`), state changes (`changed_at`), ownership bindings (started and
    /// ended), ledger entries (`effective_at`), and the receipts and notifications those entries were applied
    /// from (`ledger_entries.receipt_id`, `notification_row_id`; at `received_at`).
    func chainEvents(_ originalTransactionID: String) throws -> [TimelineEvent] {
        try run(chainEvents(of: originalTransactionID)).map(TimelineEvent.init(row:))
    }

    /// The columns every timeline statement selects, in this order (see `TimelineEvent.init(row:)`).
    static let timelineColumns: PostgresQuery =
        "at, category, bundle_id, environment, original_transaction_id, transaction_id, product_id, account_id, kind, reason, until, note, row_id"

    /// The timeline statement of `accountID`.
    func accountEvents(of accountID: String) -> PostgresQuery {
        """
        WITH \(apps),
        account_apps AS (
            SELECT a.app_id, s.bundle_id FROM accounts a JOIN scope s ON s.app_id = a.app_id
            WHERE a.account_id = \(accountID)),
        entries AS (
            SELECT e.*, aa.bundle_id FROM ledger_entries e JOIN account_apps aa ON aa.app_id = e.app_id
            WHERE e.account_id = \(accountID) AND \(inEnvironment("e.environment"))),
        bindings AS (
            SELECT b.*, aa.bundle_id FROM ownership_bindings b JOIN account_apps aa ON aa.app_id = b.app_id
            WHERE b.account_id = \(accountID) AND \(inEnvironment("b.environment")))
        SELECT \(Self.timelineColumns) FROM (
            SELECT effective_at AS at, 'ledger_entry' AS category, bundle_id, environment, original_transaction_id,
                   transaction_id, product_id, account_id, kind, reason, period_end AS until,
                   nullif(concat_ws(', ', nullif(array_to_string(entitlement_ids, ', '), ''), 'credits ' || credits), '')
                       AS note,
                   entry_id AS row_id
            FROM entries
            UNION ALL
            SELECT effective_at,
                   CASE WHEN kind IN ('revoke', 'transfer_out', 'manual_revoke') THEN 'entitlement_lost'
                        ELSE 'entitlement_gained' END,
                   bundle_id, environment, original_transaction_id, transaction_id, product_id, account_id, kind, reason,
                   CASE WHEN kind IN ('revoke', 'transfer_out', 'manual_revoke') THEN NULL ELSE period_end END,
                   array_to_string(entitlement_ids, ', '), entry_id
            FROM entries
            WHERE cardinality(entitlement_ids) > 0
              AND kind IN ('grant', 'extend', 'restore', 'transfer_in', 'revoke', 'transfer_out', 'manual_grant',
                           'manual_revoke')
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

    /// The scope's apps and the chains holding `originalTransactionID` (CTE `keys`), every environment named so the
    /// primary key (app_id, environment, original_transaction_id) applies.
    func chainKeys(_ originalTransactionID: String) -> PostgresQuery {
        let environments = StoreEnvironment.allCases.map(\.rawValue).joined(separator: ",")
        return """
            \(apps),
            keys AS (
                SELECT c.app_id, s.bundle_id, c.environment, c.original_transaction_id
                FROM chains c JOIN scope s ON s.app_id = c.app_id
                WHERE c.original_transaction_id = \(originalTransactionID)
                  AND c.environment = ANY (string_to_array(\(environments)::text, ','))
                  AND \(inEnvironment("c.environment")))
            """
    }

    /// The timeline statement of the chains holding `originalTransactionID`.
    func chainEvents(of originalTransactionID: String) -> PostgresQuery {
        """
        WITH \(chainKeys(originalTransactionID)),
        entries AS (
            SELECT e.*, k.bundle_id FROM ledger_entries e JOIN keys k USING (app_id, environment, original_transaction_id))
        SELECT \(Self.timelineColumns) FROM (
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
}

extension TimelineEvent {
    /// One row of a timeline statement (`ReportStore.timelineColumns`).
    init(row: PostgresRow) throws {
        let rawCategory = try row.decode(String.self, at: 1)
        guard let category = Category(rawValue: rawCategory) else {
            throw ReportError.invalidArgument("unknown timeline category '\(rawCategory)'")
        }
        self.init(
            at: try row.instant(at: 0), category: category, bundleID: try row.decode(String.self, at: 2),
            environment: try row.decode(String?.self, at: 3),
            originalTransactionID: try row.decode(String?.self, at: 4),
            transactionID: try row.decode(String?.self, at: 5), productID: try row.decode(String?.self, at: 6),
            accountID: try row.decode(String?.self, at: 7), kind: try row.decode(String?.self, at: 8),
            reason: try row.decode(String?.self, at: 9), until: try row.optionalInstant(at: 10),
            note: try row.decode(String?.self, at: 11), rowID: try row.decode(Int64?.self, at: 12))
    }
}
