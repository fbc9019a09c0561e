import Foundation
import PostgresLibPQ
import SubLedgerCore

/// The ledger in PostgreSQL: applies inputs through the pure `Ledger` exactly once, and reads back
/// chains, transactions and entitlements.
///
/// Each input is applied in one database transaction: the chains it touches are locked (an advisory
/// transaction lock per chain, taken in key order so it also covers chains not stored yet, then the rows
/// `FOR UPDATE`), loaded, handed to `Ledger.apply`, and the decision is written. Two service instances
/// applying inputs for the same chain therefore run one after the other, and the idempotency keys make
/// any repeat a no-op.
///
/// The apps it applies for are read with `CatalogStore`; the concepts beside the ledger have stores of their
/// own (`EntitlementReadStore`, `SecretStore`, `SupportStore`, `OfferEligibilityStore`, `AppTransactionStore`,
/// `RevenueSettingsStore`), each on the same pool.
public struct LedgerStore: Sendable {
    public let pool: PostgresPool
    /// How stored inputs that could not be applied are retried and when they are quarantined.
    public var retry: StoredInputRetry

    public init(pool: PostgresPool, retry: StoredInputRetry = StoredInputRetry()) {
        self.pool = pool
        self.retry = retry
    }

    /// Which stored raw input an apply came from; it is marked applied in the same transaction.
    public enum InputReference: Sendable, Hashable {
        /// A submitted app receipt or signed transaction: its `receipts.receipt_id`.
        case submission(Int64)
        /// A stored notification: its `notifications.notification_row_id`.
        case notification(Int64)
        case none
    }

    /// What applying one input did.
    public struct Applied: Sendable, Hashable {
        public var decision: LedgerDecision
        /// How many of the decision's entries were new (the rest had been recorded before).
        public var newEntries: Int
        /// The account each of the input's transactions belongs to after the apply (by transaction
        /// id; absent while unclaimed), so a repeat of something already credited can be told apart.
        public var accounts: [String: AccountID] = [:]
        /// The account the input was applied for: its submitter, or the account the submitter was merged into
        /// (docs/guides/accounts.md, "Merging accounts"); nil without a submitter.
        public var submitter: AccountID? = nil
    }

    /// Applies `input` for `app` at `now`, storing its effects exactly once.
    @discardableResult
    public func apply(
        _ input: LedgerInput,
        app: StoredApp,
        reference: InputReference = .none,
        now: Instant
    ) async throws -> Applied {
        try await pool.transaction { connection in
            try Self.apply(input, app: app, reference: reference, committing: true, now: now, on: connection)
        }
    }

    /// The synchronous body of `apply`, on a connection inside a transaction. With `committing`, nothing follows
    /// in the transaction: its COMMIT goes with the apply's last batch (one round trip less).
    static func apply(
        _ input: LedgerInput,
        app: StoredApp,
        reference: InputReference,
        cause: WebhookEventCause? = nil,
        committing: Bool = false,
        now: Instant,
        on connection: PostgresConnection
    ) throws -> Applied {
        try applying(
            input, app: app, reference: reference, cause: cause, committing: committing, now: now, on: connection
        ).applied
    }

    /// `apply`, storing first, when `storing` names one, a notification received now (`InputRows.insert`): its row is
    /// inserted in the apply's first batch and is the input the apply came from. A notification stored before (a
    /// redelivery) throws `InputRows.NotificationStoredBefore`, and the caller rolls back. Answers what the apply
    /// did and the input it came from.
    static func applying(
        _ input: LedgerInput,
        app: StoredApp,
        reference: InputReference,
        storing notification: InputRows.ReceivedNotification? = nil,
        cause: WebhookEventCause? = nil,
        committing: Bool,
        now: Instant,
        on connection: PostgresConnection
    ) throws -> (applied: Applied, reference: InputReference) {
        // Round trips (docs/explanation/architecture.md, "The hot paths: threads, round trips, JSON"): what the
        // decision needs, read under the chains' locks; the decision's rows with the reads the webhook events need;
        // when there are events, their accounts' sequence numbers (when they name accounts) and their insert. Each
        // batch's statements run in the order appended, each seeing the earlier ones.
        let keys = input.chainKeys
        var input = input
        var reads = PostgresBatch()
        // A notification received now is stored first, in this transaction (so a redelivery racing it waits here,
        // before any lock, until this commits).
        let storing = notification.map {
            InputRows.insert($0, appID: app.appID, appliedIn: input.environment, into: &reads)
        }
        // The submitter's account lock (shared: submissions of one account run side by side) before the chains', and
        // its alias read under it: a merge takes the account's lock exclusively, so a submission racing it either
        // applies before the merge moves what it wrote, or after, to the account merged into
        // (docs/guides/accounts.md, "Merging accounts").
        // The submitter's erasure digests: no round trip once this process holds the erasure key.
        let erasure = try input.submitter.map {
            try app.erasureKeys.digests(of: $0, appID: app.appID, on: connection)
        }
        let aliasing = AccountAliasRows.lockAndResolve(
            input.submitter, erasure: erasure, appID: app.appID, into: &reads)
        _ = ChainRows.lock(keys, appID: app.appID, into: &reads)
        let loading = ChainRows.loadForUpdate(keys, appID: app.appID, into: &reads)
        // An input stored before: its fields as the hash chain links it, encoded by the database under the chains'
        // locks (an erasure rewrites an erased account's receipts under them); one stored now is encoded here, from
        // what was inserted.
        let linking = LedgerChainRows.storedInput(
            notification == nil && !app.onCitus ? reference : .none, into: &reads)
        let naming = AccountRows.accounts(named: input.accountTokens, appID: app.appID, into: &reads)
        let ordering = try OrderRows.candidates(
            tokens: input.accountTokens, submitter: input.submitter, appID: app.appID, app: app.definition, into: &reads
        )
        let read = try connection.pipeline(reads)
        var reference = reference
        var linked = try linking.value(in: read)
        if let storing, let notification {
            guard let stored = try storing.value(in: read) else { throw InputRows.NotificationStoredBefore() }
            reference = .notification(stored.id)
            if !app.onCitus {
                linked = LedgerChainRows.LinkedInput(
                    table: "notifications", id: stored.id,
                    fields: stored.fields(of: notification, appID: app.appID).bytes, storedNow: true)
            }
        }
        input.submitter = try aliasing.value(in: read)
        var snapshot = LedgerSnapshot()
        let stored = try loading.value(in: read)
        snapshot.chains = stored.chains
        snapshot.accountsByToken = try naming.value(in: read)
        snapshot.orders = try ordering.value(in: read)
        // The accounts tokens and orders name, through their aliases too (one statement, only when there are some).
        try AccountAliasRows.resolve(&snapshot, appID: app.appID, on: connection)

        // Everything this apply writes, decided by the core in one call; what follows only turns it into rows.
        let cause = cause ?? WebhookOutbox.cause(of: input, reference: reference)
        let planned = try Ledger.writes(applying: input, to: snapshot, app: app.definition, cause: cause, now: now)
        let newEntries = try write(
            planned, snapshot: snapshot, states: stored.states, app: app, reference: reference, linking: linked,
            environment: input.environment,
            cause: cause, inputStoredApplied: storing != nil, committing: committing, now: now, on: connection)
        let applied = Applied(
            decision: planned.decision, newEntries: newEntries, accounts: planned.accountsByTransaction,
            submitter: input.submitter)
        return (applied, reference)
    }

    /// Writes what `planned` says, for an apply (or a merge) whose chains `snapshot` and `states` hold as loaded
    /// under their locks; returns how many entries were new. `linking`: the input `reference` names, as the hash chain
    /// links it (nil: nothing but the entries is linked). `inputStoredApplied`: the input was stored in this
    /// transaction, as applied, and is not marked again. With `committing`, the transaction's COMMIT goes with
    /// its last batch (the webhook events' insert) when there is one.
    static func write(
        _ planned: LedgerWrites, snapshot: LedgerSnapshot, states: [ChainKey: ChainRows.StoredState], app: StoredApp,
        reference: InputReference, linking: LedgerChainRows.LinkedInput? = nil, environment: StoreEnvironment,
        cause: WebhookEventCause,
        inputStoredApplied: Bool = false, committing: Bool = false, now: Instant, on connection: PostgresConnection
    ) throws -> Int {
        let decision = planned.decision

        var writes = PostgresBatch()
        // No foreign key keeps every account a chain names a row (the schema is ready for Citus: accounts and chains
        // are distributed by different columns): this statement does, for the accounts not known to exist already,
        // so a renewal of an owned chain creates none.
        _ = AccountRows.ensure(planned.newAccounts, appID: app.appID, into: &writes)
        let loaded = Dictionary(snapshot.chains.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        var submissionID: Int64?
        if case .submission(let id) = reference { submissionID = id }
        for chain in decision.updatedChains {
            _ = try ChainRows.write(
                chain, previous: loaded[chain.key], storedState: states[chain.key], app: app,
                submissionID: submissionID, now: now, into: &writes)
        }
        _ = EntitlementPeriodRows.write(planned.periods, appID: app.appID, into: &writes)
        // The hash chain (docs/guides/operate.md, "Verifying the ledger"), under the chains' locks taken above: in each
        // chain changed, the input's link, then each new entry's, written by the statement that inserts the entry (on
        // a Citus cluster, each chain's links after its entries, by `ledger_chain_link`).
        let inserting: Batched<Int>
        if app.onCitus {
            inserting = try EntryRows.insert(
                decision.entries, appID: app.appID, reference: reference, linking: false, into: &writes)
            _ = LedgerChainRows.link(decision, reference: reference, appID: app.appID, into: &writes)
        } else {
            LedgerChainRows.linkInput(
                linking, chains: LedgerChainRows.chains(of: decision), appID: app.appID, into: &writes)
            inserting = try EntryRows.insert(
                decision.entries, appID: app.appID, reference: reference, linking: true, into: &writes)
        }
        // The reports' aggregates follow from the report projection queue (docs/explanation/reports.md, "Freshness"):
        // the changed chains are recorded here, in this transaction, and the projector refreshes them after it commits.
        ReportProjectionQueueRows.enqueue(decision.updatedChains.map(\.key), appID: app.appID, now: now, into: &writes)
        _ = OrderRows.fulfil(
            decision.fulfilledOrders, appID: app.appID, environment: environment, now: now, into: &writes)
        // An input stored in this transaction was stored as applied (`InputRows.insert`).
        let marking =
            inputStoredApplied ? .none : InputRows.markApplied(reference, environment: environment, into: &writes)
        // What the decision owes the stores (Apple's write-backs, Google's acknowledgements), sent by the obligation
        // sender once this commits.
        _ = StoreObligationRows.record(planned.obligations, appID: app.appID, now: now, into: &writes)
        // Web purchases of an app that reports them: the External Purchase report of their token (step 51), after
        // the orders just fulfilled and the transactions just written.
        ExternalPurchaseRows.record(decision.updatedChains, app: app, now: now, into: &writes)
        // The webhook events of this decision, in its transaction (docs/guides/webhooks.md): their accounts'
        // entitlements and credit balances are read here from the read model, after the entries and the periods just
        // rewritten, and the events numbered and inserted in the round trips after this one. The chains this apply
        // loaded and wrote are in memory as they now are in the database: a read that needs chains skips them.
        let updated = Set(decision.updatedChains.map(\.key))
        let recording = try WebhookOutbox.write(
            planned.events, cause: cause, moments: planned.clockMoments, app: app, now: now,
            known: decision.updatedChains + snapshot.chains.filter { !updated.contains($0.key) }, into: &writes)
        let written = try connection.pipeline(writes)
        try marking.value(in: written)
        let newEntries = try inserting.value(in: written)

        try recording.value(in: written)(connection, committing)
        return newEntries
    }

    /// The entitlements `account` holds at `instant`, from every chain it owns or has owned.
    public func entitlements(
        for account: AccountID,
        app: StoredApp,
        at instant: Instant,
        environment: StoreEnvironment? = nil
    ) async throws -> [Entitlement] {
        let chains = try await holdings(of: account, app: app).chains
        return Ledger.entitlements(
            for: account, at: instant, chains: chains, app: app.definition, environment: environment)
    }

    /// The chains `account` owns or has owned, fully loaded (transactions and ownership history).
    public func chains(for account: AccountID, app: StoredApp) async throws -> [ChainSnapshot] {
        try await holdings(of: account, app: app).chains
    }

    /// What an account holds: every chain it owns or has owned, fully loaded, and its credit balance,
    /// read in one statement (one round trip: this is the entitlement read path).
    public func holdings(of account: AccountID, app: StoredApp) async throws -> (
        chains: [ChainSnapshot], credits: Int64
    ) {
        try await pool.withConnection { connection in
            try Self.holdings(of: account, appID: app.appID, on: connection)
        }
    }

    /// `holdings(of:app:)` on a connection.
    static func holdings(
        of account: AccountID, appID: Int64, on connection: PostgresConnection
    ) throws -> (chains: [ChainSnapshot], credits: Int64) {
        let rows = try connection.query(ChainRows.account(account, appID: appID))
        var credits: Int64 = 0
        var chains: [ChainSnapshot] = []
        for row in rows {
            credits = try row.decode(Int64.self, at: 0)
            if try row.decode(String?.self, at: 1) != nil {
                chains.append(try ChainRows.chain(from: row, at: 1))
            }
        }
        return (chains.sorted { $0.key < $1.key }, credits)
    }

    /// The chain stored under `key`, fully loaded, if any.
    public func chain(_ key: ChainKey, app: StoredApp) async throws -> ChainSnapshot? {
        try await pool.withConnection { connection in
            try ChainRows.load([key], appID: app.appID, forUpdate: false, on: connection).first
        }
    }

    /// Whether a chain is stored under `key`: one indexed row read, no transactions loaded (an ingestion's check of
    /// whether an input is the first it hears of a chain).
    public func isChainStored(_ key: ChainKey, app: StoredApp) async throws -> Bool {
        try await pool.withConnection { connection in
            try !connection.query(
                """
                SELECT 1 FROM chains
                WHERE app_id = \(app.appID) AND environment = \(key.environment.rawValue)
                    AND original_transaction_id = \(key.chainID)
                """
            ).isEmpty
        }
    }

    /// The ledger entries of `account`, oldest first.
    public func entries(for account: AccountID, app: StoredApp) async throws -> [LedgerEntry] {
        try await pool.withConnection { connection in
            try EntryRows.entries(account: account, appID: app.appID, on: connection)
        }
    }

    /// The credit balance of `account` (consumables bought minus refunded).
    public func creditBalance(for account: AccountID, app: StoredApp) async throws -> Int64 {
        try await pool.withConnection { connection in
            let rows = try connection.query(
                "SELECT credit.balance FROM \(EntryRows.creditBalance(of: account, appID: app.appID)) AS credit")
            return try rows.single().decode(Int64.self, at: 0)
        }
    }
}

extension StoreEnvironment {
    /// Reads an environment name stored by this module; an unknown one is a corrupt row, not a client error.
    static func stored(_ raw: String) throws -> StoreEnvironment {
        guard let environment = StoreEnvironment(rawValue: raw) else {
            throw StoreError(code: .corruptRow, message: "unknown environment '\(raw)' in the database")
        }
        return environment
    }

    /// Every environment, as the text array parameter (`string_to_array($n::text, ',')`) that lets the
    /// `(app_id, environment, ...)` keys apply.
    static let allAsParameter = StoreEnvironment.allCases.map(\.rawValue).joined(separator: ",")
}
