import Foundation
import PostgresLibPQ
import SubLedgerCore

/// The transactional outbox (`webhook_events`, schema step 10): the events of one apply are written in the
/// apply's own transaction, so there is no event without its ledger effect and no effect without its event.
///
/// The events and the clock's moments are derived by the core with the rest of the apply (`Ledger.writes`).
/// Cost on the ingestion path: nothing when an apply decides nothing
/// to tell; otherwise two statements: one read of the affected accounts' chains (for the entitlements
/// after the events; the apply's own chains are in memory, so only the accounts' other chains and their credit
/// balances are read) and one statement that inserts every event, takes the accounts' sequence numbers
/// and moves the clock's moments.
enum WebhookOutbox {
    /// What caused an apply, when its caller did not say: the stored input it came from, or its kind.
    static func cause(of input: LedgerInput, reference: LedgerStore.InputReference) -> WebhookEventCause {
        switch (input.kind, reference) {
        case (.signedTransaction, _), (.googlePurchase, _):
            WebhookEventCause(kind: .transaction, id: input.transactions.first?.transactionID)
        case (_, .submission(let id)): WebhookEventCause(kind: .receipt, id: String(id))
        case (.receipt, .none): WebhookEventCause(kind: .receipt)
        case (.notification, _), (_, .notification): WebhookEventCause(kind: .notification)
        case (.poll, .none): WebhookEventCause(kind: .poll)
        case (.import, .none): WebhookEventCause(kind: .admin, id: "import")
        }
    }

    /// Inserts `drafts` (those whose idempotency key is new) with the accounts' entitlements after them and
    /// their sequence numbers, and upserts `moments`; one statement, none when there is nothing to write.
    /// `known`: chains whose current rows the caller holds in memory (see `holdings`).
    static func write(
        _ drafts: [WebhookEventDraft], cause: WebhookEventCause, moments: [WebhookClockMoment], app: StoredApp,
        now: Instant, known: [ChainSnapshot] = [], on connection: PostgresConnection
    ) throws {
        let insert = try connection.run {
            try write(drafts, cause: cause, moments: moments, app: app, now: now, known: known, into: &$0)
        }
        _ = try connection.pipeline(insert)
    }

    /// `write` in two steps: appends the holdings read to `batch` (when an event names an account), and tells,
    /// from what it read, the batch that inserts the events.
    static func write(
        _ drafts: [WebhookEventDraft], cause: WebhookEventCause, moments: [WebhookClockMoment], app: StoredApp,
        now: Instant, known: [ChainSnapshot] = [], into batch: inout PostgresBatch
    ) throws -> Batched<PostgresBatch> {
        guard !drafts.isEmpty || !moments.isEmpty else { return .constant(PostgresBatch()) }
        let accounts = Set(drafts.compactMap(\.account))
        let holdings: Batched<[AccountID: (chains: [ChainSnapshot], credits: Int64)]> =
            accounts.isEmpty
            ? .constant([:]) : try self.holdings(of: accounts, appID: app.appID, known: known, into: &batch)
        return Batched { rows in
            try insert(drafts, cause: cause, moments: moments, app: app, now: now, holdings: holdings.value(in: rows))
        }
    }

    /// The statement that inserts `drafts` with the entitlements `holdings` give their accounts, and `moments`.
    private static func insert(
        _ drafts: [WebhookEventDraft], cause: WebhookEventCause, moments: [WebhookClockMoment], app: StoredApp,
        now: Instant, holdings: [AccountID: (chains: [ChainSnapshot], credits: Int64)]
    ) throws -> PostgresBatch {
        var events: [EventRow] = []
        for (index, draft) in drafts.enumerated() {
            let id = UUID().uuidString.lowercased()
            var entitlements: [Entitlement] = []
            var credits: Int64?
            if let account = draft.account, let held = holdings[account] {
                entitlements = Ledger.entitlements(
                    for: account, at: now, chains: held.chains, app: app.definition, environment: draft.environment)
                credits = held.credits
            }
            let parts = WebhookEventBody.parts(
                of: draft, id: id, bundleID: app.definition.bundleID, cause: cause, entitlements: entitlements,
                creditBalance: credits,
                store: draft.productID.flatMap { app.definition.product($0)?.store } ?? .appStore)
            events.append(
                EventRow(
                    n: index, event_id: id, environment: draft.environment.rawValue,
                    account_id: draft.account?.rawValue,
                    event_type: draft.type.rawValue, occurred_ms: draft.occurredAt.millisecondsSince1970,
                    cause_kind: cause.kind.rawValue, cause_id: cause.id, idempotency_key: draft.idempotencyKey,
                    head: parts.head, tail: parts.tail))
        }
        let momentRows = moments.map {
            MomentRow(
                environment: $0.chain.environment.rawValue, original_transaction_id: $0.chain.originalTransactionID,
                due_ms: $0.dueAt.millisecondsSince1970)
        }
        var batch = PostgresBatch()
        batch.append(
            insert(events: try StoreJSON.encode(events), moments: try StoreJSON.encode(momentRows), appID: app.appID))
        return batch
    }

    /// One event as the insert statement reads it (`jsonb_to_recordset`).
    private struct EventRow: Encodable {
        var n: Int
        var event_id: String
        var environment: String
        var account_id: String?
        var event_type: String
        var occurred_ms: Int64
        var cause_kind: String
        var cause_id: String?
        var idempotency_key: String
        var head: String
        var tail: String
    }

    private struct MomentRow: Encodable {
        var environment: String
        var original_transaction_id: String
        var due_ms: Int64
    }

    /// The chains (fully loaded, in key order) and credit balance of each of `accounts`, in one round trip. The
    /// chains of `known`, whose current rows the caller holds (an apply's own chains, loaded under their locks
    /// and written by it), are taken from there rather than read and decoded again: an account has one of them
    /// when it has a binding to it (`ownership_bindings.account_id`, one row per binding change).
    static func holdings(
        of accounts: Set<AccountID>, appID: Int64, known: [ChainSnapshot] = [], on connection: PostgresConnection
    ) throws -> [AccountID: (chains: [ChainSnapshot], credits: Int64)] {
        try connection.run { try holdings(of: accounts, appID: appID, known: known, into: &$0) }
    }

    /// `holdings`'s statements, appended to `batch`: the credit balances, and the chains the accounts own.
    static func holdings(
        of accounts: Set<AccountID>, appID: Int64, known: [ChainSnapshot] = [], into batch: inout PostgresBatch
    ) throws -> Batched<[AccountID: (chains: [ChainSnapshot], credits: Int64)]> {
        let sorted = accounts.sorted { $0.rawValue < $1.rawValue }
        let names = PostgresArrayText.strings(sorted.map(\.rawValue))
        let balances = sorted.map { account in (account, batch.append(credits(of: account, appID: appID))) }
        let owned = batch.append(ownedChains(of: names, appID: appID, except: known))
        return Batched { rows in
            var result: [AccountID: (chains: [ChainSnapshot], credits: Int64)] = [:]
            for account in accounts { result[account] = ([], 0) }
            for (account, balance) in balances {
                result[account]?.credits = try rows[balance].single().decode(Int64.self, at: 0)
            }
            for row in rows[owned] {
                result[try storedAccount(row.decode(String.self, at: 0))]?.chains.append(
                    try ChainRows.chain(from: row, at: 1))
            }
            for (account, held) in result {
                let mine = known.filter { chain in chain.bindingChanges.contains { $0.to == account } }
                result[account] = ((held.chains + mine).sorted { $0.key < $1.key }, held.credits)
            }
            return result
        }
    }

    /// The credit balance of `account` (`account_credit_entries`, schema step 37), one statement per account: each
    /// names its account as a value, so on a Citus cluster it goes to that account's shard (a list of accounts in
    /// one statement went to every shard).
    static func credits(of account: AccountID, appID: Int64) -> PostgresQuery {
        "SELECT balance FROM \(EntryRows.creditBalance(of: account, appID: appID)) AS credit"
    }

    /// The chains each of `names` has a binding to, but those of `known`: the bindings and chains are joined on
    /// their distribution column, so Citus runs the join on each worker (every shard, as the account is not the
    /// key).
    static func ownedChains(of names: String, appID: Int64, except known: [ChainSnapshot]) -> PostgresQuery {
        let knownKeys = PostgresArrayText.strings(
            known.map { "\($0.key.environment.rawValue):\($0.key.originalTransactionID)" })
        return """
            SELECT b.account_id, \(ChainRows.chainColumns)
            FROM (SELECT DISTINCT account_id, environment, original_transaction_id FROM ownership_bindings
                  WHERE app_id = \(appID) AND account_id = ANY (\(names)::text::text[])) AS b
            JOIN chains t ON t.app_id = \(appID) AND t.environment = b.environment
              AND t.original_transaction_id = b.original_transaction_id
            WHERE t.environment || ':' || t.original_transaction_id <> ALL (\(knownKeys)::text::text[])
            """
    }

    /// Every event whose key is new gets the next numbers of its account (`webhook_account_sequences`,
    /// upserted with RETURNING: writers of one account wait for each other there, so numbers follow commit
    /// order); a key already recorded consumes no number. Callers hold the chain locks of their events'
    /// subjects, so no other transaction can be inserting the same key meanwhile (the ON CONFLICT is a
    /// safety net that at worst leaves a gap, never a repeat). The clock's moments ride along.
    static func insert(events: String, moments: String, appID: Int64) -> PostgresQuery {
        """
        WITH input AS (
          SELECT * FROM jsonb_to_recordset(\(events)::jsonb) AS i(n int, event_id uuid, environment text, account_id text,
              event_type text, occurred_ms bigint, cause_kind text, cause_id text, idempotency_key text, head text,
              tail text)
        ), fresh AS (
          SELECT i.* FROM input i
          WHERE NOT EXISTS (SELECT 1 FROM webhook_events w WHERE w.app_id = \(appID) AND w.idempotency_key = i.idempotency_key)
        ), counted AS (
          SELECT environment, account_id, count(*) AS taken FROM fresh WHERE account_id IS NOT NULL
          GROUP BY environment, account_id
        ), numbers AS (
          INSERT INTO webhook_account_sequences AS s (app_id, environment, account_id, last_sequence)
          SELECT \(appID), environment, account_id, taken FROM counted
          ON CONFLICT (app_id, environment, account_id) DO UPDATE SET last_sequence = s.last_sequence + EXCLUDED.last_sequence
          RETURNING environment, account_id, last_sequence
        ), numbered AS (
          SELECT f.*, CASE WHEN f.account_id IS NULL THEN NULL ELSE
              q.last_sequence - count(*) OVER (PARTITION BY f.environment, f.account_id)
                + row_number() OVER (PARTITION BY f.environment, f.account_id ORDER BY f.n) END AS sequence
          FROM fresh f LEFT JOIN numbers q ON q.environment = f.environment AND q.account_id = f.account_id
        ), moments AS (
          INSERT INTO webhook_clock_moments AS m (app_id, environment, original_transaction_id, due_at)
          SELECT \(appID), environment, original_transaction_id, timestamptz 'epoch' + due_ms * interval '1 millisecond'
          FROM jsonb_to_recordset(\(moments)::jsonb) AS d(environment text, original_transaction_id text, due_ms bigint)
          ON CONFLICT (app_id, environment, original_transaction_id) DO UPDATE SET due_at = EXCLUDED.due_at
        )
        INSERT INTO webhook_events (event_id, app_id, environment, account_id, account_sequence, event_type,
            occurred_at, cause_kind, cause_id, idempotency_key, body)
        SELECT event_id, \(appID), environment, account_id, sequence, event_type,
            timestamptz 'epoch' + occurred_ms * interval '1 millisecond', cause_kind, cause_id, idempotency_key,
            head || coalesce(sequence::text, 'null') || tail
        FROM numbered ORDER BY n
        ON CONFLICT (app_id, idempotency_key) DO NOTHING
        """
    }
}
