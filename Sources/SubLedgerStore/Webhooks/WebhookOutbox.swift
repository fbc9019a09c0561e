import Foundation
import PostgresLibPQ
import SubLedgerCore

/// The transactional outbox (`webhook_events`, schema step 10): the events of one apply are written in the
/// apply's own transaction, so there is no event without its ledger effect and no effect without its event.
///
/// The events and the clock's moments are derived by the core with the rest of the apply (`Ledger.writes`).
/// Cost on the ingestion path: nothing when an apply decides nothing to tell. Otherwise, in the apply's second
/// round trip, after its writes: an upsert per clock moment, which of the events' idempotency keys are recorded
/// already, each affected account's entitlement read (`EntitlementPeriodRows.read`: the read model's periods at
/// the instant, the apply's own just rewritten, and the credit balance) and each account's sequence numbers (one
/// upsert per account); then one round trip that inserts the events. On a Citus cluster each of these names its
/// distribution value (the account, or the chain of a moment) or reads and writes only `webhook_events`, which
/// stays on the coordinator: none goes to more than one shard. An account the read model cannot answer for (not
/// backfilled yet, or a period that needs its chain: a non-renewing purchase) costs one round trip more: the
/// chains of its periods by key, or, not backfilled yet, every chain it has a binding to (`ownedChains`, every
/// shard).
enum WebhookOutbox {
    /// What caused an apply, when its caller did not say: the stored input it came from, or its kind.
    static func cause(of input: LedgerInput, reference: LedgerStore.InputReference) -> WebhookEventCause {
        switch (input.kind, reference) {
        case (.submission(let kind), _) where kind != .appReceipt:
            WebhookEventCause(kind: .transaction, id: input.transactions.first?.transactionID)
        case (_, .submission(let id)): WebhookEventCause(kind: .receipt, id: String(id))
        case (.submission, .none): WebhookEventCause(kind: .receipt)
        case (.notification, _), (_, .notification): WebhookEventCause(kind: .notification)
        case (.poll, .none): WebhookEventCause(kind: .poll)
        case (.import, .none): WebhookEventCause(kind: .admin, id: "import")
        }
    }

    /// Inserts `drafts` (those whose idempotency key is new) with the accounts' entitlements after them and
    /// their sequence numbers, and upserts `moments`; nothing when there is nothing to write.
    /// `known`: chains whose current rows the caller holds in memory (see `holdings`).
    static func write(
        _ drafts: [WebhookEventDraft], cause: WebhookEventCause, moments: [WebhookClockMoment], app: StoredApp,
        now: Instant, known: [ChainSnapshot] = [], on connection: PostgresConnection
    ) throws {
        let rest = try connection.run {
            try write(drafts, cause: cause, moments: moments, app: app, now: now, known: known, into: &$0)
        }
        try rest(connection, false)
    }

    /// `write` in steps: appends to `batch` (the caller's round trip, after its own writes) the moments' upserts,
    /// the reads the events need and the accounts' sequence numbers, and tells, from what they read, what is left
    /// to run on the connection: the events' insert, with the numbers of events already recorded given back. With
    /// its second argument true, that insert is the transaction's last batch and carries its COMMIT
    /// (`PostgresConnection.pipeline(_:committing:)`); nothing is committed when there is nothing to insert.
    static func write(
        _ drafts: [WebhookEventDraft], cause: WebhookEventCause, moments: [WebhookClockMoment], app: StoredApp,
        now: Instant, known: [ChainSnapshot] = [], into batch: inout PostgresBatch
    ) throws -> Batched<(PostgresConnection, _ committing: Bool) throws -> Void> {
        for moment in moments {
            _ = batch.append(upsert(moment, appID: app.appID))
        }
        // A key repeated among the drafts is one event (the first).
        var distinct: Set<String> = []
        let drafts = drafts.filter { distinct.insert($0.idempotencyKey).inserted }
        guard !drafts.isEmpty else { return .constant({ _, _ in }) }
        let keys = batch.append(recordedKeys(of: drafts.map(\.idempotencyKey), appID: app.appID))
        let accounts = Set(drafts.compactMap(\.account))
        let reading = holdings(of: accounts, appID: app.appID, at: now, known: known, into: &batch)
        // Each account's numbers for all its drafts, taken now (the row stays locked until the transaction ends);
        // those of drafts found recorded already are given back with the insert, so numbers have no gaps.
        var taken: [Stream: Int64] = [:]
        for draft in drafts {
            guard let account = draft.account else { continue }
            taken[Stream(environment: draft.environment, account: account), default: 0] += 1
        }
        let numbering = taken.keys.sorted().map { stream in
            (stream, batch.append(takeNumbers(taken[stream] ?? 0, of: stream, appID: app.appID)))
        }
        return Batched { rows in
            let recorded = Set(try rows[keys].map { try $0.decode(String.self, at: 0) })
            var last: [Stream: Int64] = [:]
            for (stream, index) in numbering {
                last[stream] = try rows[index].single().decode(Int64.self, at: 0)
            }
            let pending = try reading.value(in: rows)
            return { (connection: PostgresConnection, committing: Bool) throws in
                let held = try pending(connection)
                var finishing = PostgresBatch()
                try insert(
                    drafts.filter { !recorded.contains($0.idempotencyKey) }, taken: taken, last: last, cause: cause,
                    app: app, now: now, holdings: held, into: &finishing)
                if !finishing.isEmpty { _ = try connection.pipeline(finishing, committing: committing) }
            }
        }
    }

    /// The events of one account in one environment, numbered together (`webhook_account_sequences`).
    struct Stream: Hashable, Comparable {
        var environment: StoreEnvironment
        var account: AccountID

        static func < (a: Stream, b: Stream) -> Bool {
            (a.account.rawValue, a.environment.rawValue) < (b.account.rawValue, b.environment.rawValue)
        }
    }

    /// Which of `keys` the outbox holds already (`webhook_events`, on the coordinator).
    static func recordedKeys(of keys: [String], appID: Int64) -> PostgresQuery {
        """
        SELECT idempotency_key FROM webhook_events
        WHERE app_id = \(appID) AND idempotency_key = ANY (\(PostgresArrayText.strings(keys))::text::text[])
        """
    }

    /// Upserts the clock's moment of one chain: a statement that names the chain, so on a Citus cluster it goes
    /// to the chain's shard.
    static func upsert(_ moment: WebhookClockMoment, appID: Int64) -> PostgresQuery {
        """
        INSERT INTO webhook_clock_moments AS m (app_id, environment, original_transaction_id, due_at)
        VALUES (\(appID), \(moment.chain.environment.rawValue), \(moment.chain.chainID), \(timestamp(moment.dueAt)))
        ON CONFLICT (app_id, environment, original_transaction_id) DO UPDATE SET due_at = EXCLUDED.due_at
        """
    }

    /// Appends to `batch` the statements that give back the numbers `fresh` leaves unused and insert `fresh`,
    /// each event with its account's entitlements and the next of the numbers taken (`taken` up to `last`).
    private static func insert(
        _ fresh: [WebhookEventDraft], taken: [Stream: Int64], last: [Stream: Int64], cause: WebhookEventCause,
        app: StoredApp, now: Instant, holdings: [AccountID: Holding], into batch: inout PostgresBatch
    ) throws {
        var used: [Stream: Int64] = [:]
        for draft in fresh {
            guard let account = draft.account else { continue }
            used[Stream(environment: draft.environment, account: account), default: 0] += 1
        }
        for stream in taken.keys.sorted() {
            let unused = (taken[stream] ?? 0) - (used[stream] ?? 0)
            guard unused > 0, let last = last[stream] else { continue }
            _ = batch.append(giveBack(unused, of: stream, last: last, appID: app.appID))
        }
        guard !fresh.isEmpty else { return }
        var next: [Stream: Int64] = [:]
        for (stream, count) in taken {
            next[stream] = (last[stream] ?? 0) - count + 1
        }
        for draft in fresh {
            let id = UUID().uuidString.lowercased()
            var entitlements: [Entitlement] = []
            var credits: Int64?
            var sequence: Int64?
            if let account = draft.account {
                let stream = Stream(environment: draft.environment, account: account)
                sequence = next[stream]
                next[stream] = (next[stream] ?? 1) + 1
                if let held = holdings[account] {
                    entitlements = held.entitlements(
                        of: account, at: now, app: app.definition, environment: draft.environment)
                    credits = held.credits
                }
            }
            let parts = WebhookEventBody.parts(
                of: draft, id: id, bundleID: app.definition.bundleID, cause: cause, entitlements: entitlements,
                creditBalance: credits,
                store: draft.productID.flatMap { app.definition.product($0)?.store } ?? .appStore)
            // One statement per event, in the drafts' order, all in this batch's round trip.
            _ = batch.append(
                insert(
                    EventRow(
                        eventID: id, environment: draft.environment, account: draft.account,
                        accountSequence: sequence, type: draft.type.rawValue, occurredAt: draft.occurredAt,
                        causeKind: cause.kind.rawValue, causeID: cause.id, idempotencyKey: draft.idempotencyKey,
                        body: parts.head + (sequence.map { String($0) } ?? "null") + parts.tail),
                    appID: app.appID))
        }
    }

    /// One event's row in `webhook_events`.
    struct EventRow {
        var eventID: String
        var environment: StoreEnvironment
        var account: AccountID?
        var accountSequence: Int64?
        var type: String
        var occurredAt: Instant
        var causeKind: String
        var causeID: String?
        var idempotencyKey: String
        var body: String
    }

    /// What an account holds when its events are written: its credit balance, and its entitlement periods at the
    /// instant (every one with a grant) or, where the read model cannot answer, its chains.
    struct Holding {
        var credits: Int64
        var periods: [EntitlementPeriod]?
        var chains: [ChainSnapshot] = []
        /// The account's grants that give access at the instant (`EntitlementGrant`).
        var grants: [EntitlementGrant] = []

        /// The entitlements of `account` in `environment` at `instant`: the read model's answer, or the chains'.
        func entitlements(
            of account: AccountID, at instant: Instant, app: App, environment: StoreEnvironment
        ) -> [Entitlement] {
            let sold =
                periods.flatMap {
                    Ledger.entitlements(
                        from: $0.filter { $0.chain.environment == environment }, for: account, at: instant, app: app)
                } ?? Ledger.entitlements(for: account, at: instant, chains: chains, app: app, environment: environment)
            return Ledger.entitlements(sold, granted: grants, at: instant, app: app, environment: environment)
        }
    }

    /// What each of `accounts` holds at `instant`, appended to `batch`: the entitlement read of each account (the
    /// read model's periods at the instant and the credit balance, one statement on the account's rows). What is
    /// left, run on the connection, reads the chains of the accounts the read model cannot answer for: the
    /// chains of their periods that need them, by key, and every chain of an account still to be backfilled
    /// (`ownedChains`); the chains of `known`, whose current rows the caller holds (an apply's own chains,
    /// loaded under their locks and written by it), are taken from there.
    static func holdings(
        of accounts: Set<AccountID>, appID: Int64, at instant: Instant, known: [ChainSnapshot],
        into batch: inout PostgresBatch
    ) -> Batched<(PostgresConnection) throws -> [AccountID: Holding]> {
        let sorted = accounts.sorted { $0.rawValue < $1.rawValue }
        let reads = sorted.map { account in
            (account, batch.append(EntitlementPeriodRows.read(account, appID: appID, at: instant)))
        }
        return Batched { rows in
            var result: [AccountID: Holding] = [:]
            var unbackfilled: [AccountID] = []
            var chainKeys: Set<ChainKey> = []
            for (account, index) in reads {
                let stored = try EntitlementPeriodRows.parseStored(rows[index], account, at: instant)
                if stored.pending {
                    unbackfilled.append(account)
                    result[account] = Holding(credits: stored.credits, periods: nil, grants: stored.grants)
                } else if stored.periods.contains(where: \.needsChains) {
                    chainKeys.formUnion(stored.periods.map(\.chain))
                    result[account] = Holding(credits: stored.credits, periods: nil, grants: stored.grants)
                } else {
                    result[account] = Holding(
                        credits: stored.credits, periods: stored.periods, grants: stored.grants)
                }
            }
            return { (connection: PostgresConnection) throws -> [AccountID: Holding] in
                guard !unbackfilled.isEmpty || !chainKeys.isEmpty else { return result }
                let knownKeys = Set(known.map(\.key))
                var fallback = PostgresBatch()
                let owned =
                    unbackfilled.isEmpty
                    ? nil
                    : fallback.append(
                        ownedChains(
                            of: PostgresArrayText.strings(unbackfilled.map(\.rawValue)), appID: appID, except: known))
                let loads = chainKeys.subtracting(knownKeys).sorted().map {
                    fallback.append(ChainRows.load($0, appID: appID))
                }
                let read = try connection.pipeline(fallback)
                var loaded: [ChainSnapshot] = []
                for index in loads {
                    loaded += try read[index].map { try ChainRows.chain(from: $0, at: 0) }
                }
                let byKey = known.filter { chainKeys.contains($0.key) } + loaded
                if let owned {
                    for row in read[owned] {
                        let account = try storedAccount(row.decode(String.self, at: 0))
                        result[account]?.chains.append(try ChainRows.chain(from: row, at: 1))
                    }
                }
                for account in result.keys where result[account]?.periods == nil {
                    if unbackfilled.contains(account) {
                        let mine = known.filter { chain in chain.bindingChanges.contains { $0.to == account } }
                        result[account]?.chains += mine
                    } else {
                        result[account]?.chains = byKey
                    }
                    result[account]?.chains.sort { $0.key < $1.key }
                }
                return result
            }
        }
    }

    /// The chains each of `names` has a binding to, but those of `known`: the bindings and chains are joined on
    /// their distribution column, so Citus runs the join on each worker (every shard, as the account is not the
    /// key).
    static func ownedChains(of names: String, appID: Int64, except known: [ChainSnapshot]) -> PostgresQuery {
        let knownKeys = PostgresArrayText.strings(
            known.map { "\($0.key.environment.rawValue):\($0.key.chainID)" })
        return """
            SELECT b.account_id, \(ChainRows.chainColumns)
            FROM (SELECT DISTINCT account_id, environment, original_transaction_id FROM ownership_bindings
                  WHERE app_id = \(appID) AND account_id = ANY (\(names)::text::text[])) AS b
            JOIN chains t ON t.app_id = \(appID) AND t.environment = b.environment
              AND t.original_transaction_id = b.original_transaction_id
            WHERE t.environment || ':' || t.original_transaction_id <> ALL (\(knownKeys)::text::text[])
            """
    }

    /// Takes `count` sequence numbers of `stream` (`webhook_account_sequences`, upserted with RETURNING the last
    /// one taken: writers of one account wait for each other on its row until they commit, so numbers follow
    /// commit order). The statement names the account: on a Citus cluster, it goes to the account's shard.
    static func takeNumbers(_ count: Int64, of stream: Stream, appID: Int64) -> PostgresQuery {
        """
        INSERT INTO webhook_account_sequences AS s (app_id, environment, account_id, last_sequence)
        VALUES (\(appID), \(stream.environment.rawValue), \(stream.account.rawValue), \(count))
        ON CONFLICT (app_id, environment, account_id) DO UPDATE SET last_sequence = s.last_sequence + EXCLUDED.last_sequence
        RETURNING last_sequence
        """
    }

    /// Gives back the last `count` numbers `takeNumbers` took of `stream` (`last`: the last it took), in the same
    /// transaction, with the row still locked: no other writer took a number since. A row left with none is
    /// removed (numbers start at 1).
    static func giveBack(_ count: Int64, of stream: Stream, last: Int64, appID: Int64) -> PostgresQuery {
        let row: PostgresQuery = """
            app_id = \(appID) AND environment = \(stream.environment.rawValue) AND account_id = \(stream.account.rawValue)
            """
        return last > count
            ? "UPDATE webhook_account_sequences SET last_sequence = \(last - count) WHERE \(row)"
            : "DELETE FROM webhook_account_sequences WHERE \(row)"
    }

    /// Inserts an event (`webhook_events`, on the coordinator), numbered and with its body complete; a key already
    /// recorded is skipped (the ON CONFLICT is a safety net: the keys were read under the chain locks).
    static func insert(_ event: EventRow, appID: Int64) -> PostgresQuery {
        """
        INSERT INTO webhook_events (event_id, app_id, environment, account_id, account_sequence, event_type,
            occurred_at, cause_kind, cause_id, idempotency_key, body)
        VALUES (\(event.eventID)::uuid, \(appID), \(event.environment.rawValue), \(event.account?.rawValue),
            \(event.accountSequence), \(event.type), \(timestamp(event.occurredAt)), \(event.causeKind), \(event.causeID),
            \(event.idempotencyKey), \(event.body))
        ON CONFLICT (app_id, idempotency_key) DO NOTHING
        """
    }
}
