import PostgresLibPQ
import SubLedgerCore

/// The append-only `ledger_entries` table.
enum EntryRows {
    /// The credit balance of `account` of app `appID` (credits granted minus credits taken back: a `bigint`, 0
    /// without entries), as a subquery of one row and one column, `balance`. It sums `account_credit_entries`
    /// (schema step 37), which keeps the account's credit and debit entries with its other rows, so that on a Citus
    /// cluster the read goes to the account's shard alone.
    static func creditBalance(of account: AccountID, appID: Int64) -> PostgresQuery {
        """
        (SELECT coalesce(sum(credits), 0)::bigint AS balance FROM account_credit_entries
         WHERE app_id = \(appID) AND account_id = \(account.rawValue))
        """
    }

    /// Inserts `entries`, skipping those whose idempotency key is recorded already; returns how many were new. With
    /// `linking`, each new entry is linked in its chain's hash chain by the statement that inserts it (the caller
    /// holds the entries' chains' locks); without, the caller links them after (`LedgerChainRows.link`).
    static func insert(
        _ entries: [LedgerEntry], appID: Int64, reference: LedgerStore.InputReference, linking: Bool,
        on connection: PostgresConnection
    ) throws -> Int {
        try connection.run { try insert(entries, appID: appID, reference: reference, linking: linking, into: &$0) }
    }

    /// `insert`'s statements, appended to `batch`; tells how many entries were new.
    static func insert(
        _ entries: [LedgerEntry], appID: Int64, reference: LedgerStore.InputReference, linking: Bool,
        into batch: inout PostgresBatch
    ) throws -> Batched<Int> {
        var submissionID: Int64?
        var notificationID: Int64?
        switch reference {
        case .submission(let id): submissionID = id
        case .notification(let id): notificationID = id
        case .none: break
        }
        var indices: [Int] = []
        for entry in entries {
            let insert =
                linking
                ? try insertLinked(entry, appID: appID, submissionID: submissionID, notificationID: notificationID)
                : try insert(entry, appID: appID, submissionID: submissionID, notificationID: notificationID)
            indices.append(batch.append(insert))
            if let credit = creditEntry(entry, appID: appID) { batch.append(credit) }
        }
        return Batched { rows in indices.reduce(0) { $0 + rows[$1].rowsAffected } }
    }

    /// One entry's insert, which links it in its chain's hash chain in the same statement (schema step 62): when the
    /// entry is new, its link follows the chain's head (or starts the chain) and the head moves to it. The entry's
    /// fields are encoded from the columns as inserted (`ledger_chain_entry_fields`: its id and `recorded_at` are the
    /// database's), after the head read `FOR UPDATE`. Under the chain's lock, entry ids grow along a chain, so the
    /// links stay in entry order. Its one affected row is the link: none for an entry recorded before. Not on a Citus
    /// cluster, which runs each data-modifying CTE as a step of its own through the coordinator.
    static func insertLinked(_ entry: LedgerEntry, appID: Int64, submissionID: Int64?, notificationID: Int64?) throws
        -> PostgresQuery
    {
        let key = ChainKey(environment: entry.environment, chainID: entry.chainID)
        let chain = LedgerChainRows.chainValues(key, appID: appID)
        let inserting = try insert(entry, appID: appID, submissionID: submissionID, notificationID: notificationID)
        return """
            WITH entry AS (
                \(inserting)
                RETURNING *
            ),
            head AS (
                \(LedgerChainRows.headForUpdate(key, appID: appID))
            ),
            link AS (
                SELECT coalesce(head.seq, 0) + 1 AS seq, e.entry_id AS last_entry_id,
                    sha256(coalesce(head.hash, \(LedgerChainHash.genesis)::bytea)
                        || ledger_chain_entry_fields(e.entry_id, e.app_id, e.idempotency_key, e.kind, e.account_id,
                            e.environment, e.original_transaction_id, e.transaction_id, e.product_id,
                            e.entitlement_ids, e.credits, e.effective_at, e.period_end, e.reason, e.receipt_id,
                            e.notification_row_id, e.recorded_at)) AS hash
                FROM entry e LEFT JOIN head ON true
            ),
            moved AS (
                \(LedgerChainRows.moveHead(chain))
            )
            INSERT INTO ledger_chain_links (app_id, environment, original_transaction_id, seq, item_table, item_id, hash)
            SELECT \(chain), link.seq, 'ledger_entries', link.last_entry_id, link.hash FROM link
            """
    }

    /// One entry's insert alone.
    static func insert(_ entry: LedgerEntry, appID: Int64, submissionID: Int64?, notificationID: Int64?) throws
        -> PostgresQuery
    {
        """
        INSERT INTO ledger_entries (app_id, idempotency_key, kind, account_id, environment, original_transaction_id,
            transaction_id, product_id, entitlement_ids, credits, effective_at, period_end, reason, receipt_id,
            notification_row_id)
        VALUES (\(appID), \(entry.idempotencyKey), \(entry.kind.storedName), \(entry.account.rawValue),
            \(entry.environment.rawValue), \(entry.chainID), \(entry.transactionID), \(entry.productID),
            \(PostgresArrayText.strings(entry.entitlementIDs))::text[],
            \(entry.credits), \(timestamp(entry.effectiveAt)), \(timestamp(entry.periodEnd)), \(entry.reason.rawValue),
            \(submissionID), \(notificationID))
        ON CONFLICT (app_id, environment, original_transaction_id, idempotency_key) DO NOTHING
        """
    }

    /// The account's record of a `credit` or `debit` entry (schema step 37), written with the entry under its key,
    /// so that a replay that adds no entry adds no credits either; nil for the other kinds.
    static func creditEntry(_ entry: LedgerEntry, appID: Int64) -> PostgresQuery? {
        let credits: Int64
        switch entry.kind {
        case .credit: credits = entry.credits ?? 0
        case .debit: credits = -(entry.credits ?? 0)
        default: return nil
        }
        return """
            INSERT INTO account_credit_entries (app_id, account_id, environment, original_transaction_id,
                idempotency_key, credits)
            VALUES (\(appID), \(entry.account.rawValue), \(entry.environment.rawValue), \(entry.chainID),
                \(entry.idempotencyKey), \(credits))
            ON CONFLICT DO NOTHING
            """
    }

    /// The entries of `account` that stores caused, in the order they were recorded (a grant's entries are read
    /// as grants: `EntitlementGrantStore`).
    static func entries(account: AccountID, appID: Int64, on connection: PostgresConnection) throws -> [LedgerEntry] {
        let rows = try connection.query(
            """
            SELECT e.idempotency_key, e.kind, e.account_id, a.bundle_id, e.environment, e.original_transaction_id,
                   e.transaction_id, e.product_id, to_jsonb(e.entitlement_ids)::text, e.credits,
                   \(milliseconds("e.effective_at")), \(milliseconds("e.period_end")), e.reason
            FROM ledger_entries e JOIN apps a USING (app_id)
            WHERE e.app_id = \(appID) AND e.account_id = \(account.rawValue)
              AND e.kind NOT IN ('manual_grant', 'manual_revoke')
            ORDER BY e.entry_id
            """)
        return try rows.map { row in
            let rawKind = try row.decode(String.self, at: 1)
            let rawReason = try row.decode(String.self, at: 12)
            guard let kind = LedgerEntry.Kind(storedName: rawKind), let reason = LedgerEntry.Reason(rawValue: rawReason)
            else {
                throw StoreError(code: .corruptRow, message: "unknown entry kind or reason '\(rawKind)/\(rawReason)'")
            }
            return LedgerEntry(
                idempotencyKey: try row.decode(String.self, at: 0),
                kind: kind,
                account: try storedAccount(row.decode(String.self, at: 2)),
                bundleID: try row.decode(String.self, at: 3),
                environment: try .stored(row.decode(String.self, at: 4)),
                chainID: try row.decode(String.self, at: 5),
                transactionID: try row.decode(String?.self, at: 6) ?? "",
                productID: try row.decode(String.self, at: 7),
                entitlementIDs: try StoreJSON.decode(
                    [String].self, from: row.decode(String.self, at: 8), what: "entitlement list"),
                credits: try row.decode(Int64?.self, at: 9),
                effectiveAt: Instant(millisecondsSince1970: try row.decode(Int64.self, at: 10)),
                periodEnd: try row.decode(Int64?.self, at: 11).map(Instant.init(millisecondsSince1970:)),
                reason: reason)
        }
    }
}

extension LedgerEntry.Kind {
    /// The kind's name in the `ledger_entries.kind` column (snake_case).
    var storedName: String {
        switch self {
        case .transferOut: "transfer_out"
        case .transferIn: "transfer_in"
        default: rawValue
        }
    }

    init?(storedName: String) {
        switch storedName {
        case "transfer_out": self = .transferOut
        case "transfer_in": self = .transferIn
        default: self.init(rawValue: storedName)
        }
    }
}
