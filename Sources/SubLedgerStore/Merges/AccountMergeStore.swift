import Foundation
import PostgresLibPQ
import SubLedgerCore

/// What a merge moved from one account to another.
public struct AccountMergeMoves: Sendable, Hashable {
    /// The chains whose owner changed, in key order.
    public var chains: [ChainKey]
    /// The ids of the grants that moved (those not revoked and not ended).
    public var grants: [String]
    /// The consumable credits that moved.
    public var credits: Int64
    /// False when `from` had been merged into the same account before: nothing was written this time.
    public var merged: Bool
}

/// An alias of an app's account: `account` was merged into `mergedInto`.
public struct AccountAlias: Sendable, Hashable {
    public var account: AccountID
    public var mergedInto: AccountID
    public var mergedBy: String
    public var mergedAt: Instant
}

/// Why the store refused a merge.
public enum AccountMergeConflict: Error, Sendable, Hashable {
    /// The account to merge into was itself merged into `target`.
    case intoIsMerged(target: AccountID)
    /// The account to merge was merged into another account (`target`) before.
    case fromMergedElsewhere(target: AccountID)
}

/// Account merges (docs/guides/accounts.md, "Merging accounts"), each in one transaction: both accounts' locks
/// (exclusive, in id order), then the chains' locks (key order) as an apply takes them; the chains `from` owns and
/// those where it holds credits or a transaction move through `AccountMerge`, written as an apply writes (the
/// ledger's transfer entries and hash chain, the transactions' account, the read model, the outbox); its live grants
/// move row by row with transfer entries on their own chains; the app purchases it claimed are claimed by `into`; and
/// the alias is recorded, with earlier aliases into `from` re-pointed so aliases stay flat.
public struct AccountMergeStore: Sendable {
    public let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// Merges `from` into `into` in `app`, by `actor`, at `now`.
    public func merge(
        _ from: AccountID, into: AccountID, app: StoredApp, actor: String, now: Instant
    ) async throws -> AccountMergeMoves {
        try await pool.transaction { connection in
            // The app purchases `from` claimed, locked first: a claim takes its app purchase's lock and then its
            // account's, so the merge takes them in that order too.
            let claimed = try Self.lockAppTransactions(claimedBy: from, app: app, on: connection)
            for account in [from, into].sorted(by: { $0.rawValue < $1.rawValue }) {
                _ = try connection.query(AccountAliasRows.lock(account, appID: app.appID, exclusive: true))
            }
            // An erased account is merged neither into nor from (docs/guides/accounts.md, "Erasing an account").
            for account in [from, into]
            where try AccountErasureStore.isErased(account, app: app, on: connection) {
                throw AccountErasureConflict.erased
            }
            let targets = try AccountAliasRows.targets(of: [from, into], appID: app.appID, on: connection)
            if let target = targets[into] { throw AccountMergeConflict.intoIsMerged(target: target) }
            if let target = targets[from] {
                guard target == into else { throw AccountMergeConflict.fromMergedElsewhere(target: target) }
                return AccountMergeMoves(chains: [], grants: [], credits: 0, merged: false)
            }
            try Self.moveAppTransactionClaims(claimed, from: from, into: into, app: app, now: now, on: connection)
            let cause = WebhookEventCause(kind: .admin, id: "merge")
            let chains = try Self.moveChains(from, into: into, app: app, cause: cause, now: now, on: connection)
            let grants = try Self.moveGrants(from, into: into, app: app, actor: actor, now: now, on: connection)
            try Self.recordAlias(from, into: into, app: app, actor: actor, now: now, on: connection)
            return AccountMergeMoves(chains: chains.keys, grants: grants, credits: chains.credits, merged: true)
        }
    }

    /// The aliases merged into `account`, oldest first.
    public func aliases(of account: AccountID, app: StoredApp) async throws -> [AccountAlias] {
        try await pool.withConnection { connection in
            try connection.query(
                """
                SELECT account_id, merged_by, \(milliseconds("merged_at")) FROM account_aliases
                WHERE app_id = \(app.appID) AND merged_into = \(account.rawValue)
                ORDER BY merged_at, account_id
                """
            ).map { row in
                AccountAlias(
                    account: try storedAccount(row.decode(String.self, at: 0)), mergedInto: account,
                    mergedBy: try row.decode(String.self, at: 1),
                    mergedAt: Instant(millisecondsSince1970: try row.decode(Int64.self, at: 2)))
            }
        }
    }

    /// What `account` was merged into, if anything.
    public func target(of account: AccountID, app: StoredApp) async throws -> AccountID? {
        try await pool.withConnection { connection in
            try AccountAliasRows.targets(of: [account], appID: app.appID, on: connection)[account]
        }
    }

    /// Moves the chains `from` owns and its credits, as `AccountMerge` decides, written as an apply writes.
    private static func moveChains(
        _ from: AccountID, into: AccountID, app: StoredApp, cause: WebhookEventCause, now: Instant,
        on connection: PostgresConnection
    ) throws -> (keys: [ChainKey], credits: Int64) {
        // The chains to lock: owned by `from` (a multi-shard read on Citus, by the owner index), those holding a
        // transaction attributed to `from` (its purchases follow it even on a chain another account owns now; a
        // multi-shard read too, by the account index), and those where it holds credits (its own shard). Read again
        // under their locks below: an apply may have moved one meanwhile. The transactions' rows are rewritten by
        // their chain's key (`transactions` is distributed by the chain, not the account: an update in place).
        var keys = Set<ChainKey>()
        let owned: PostgresQuery = """
            SELECT environment, original_transaction_id FROM chains
            WHERE app_id = \(app.appID) AND owner_account_id = \(from.rawValue)
            """
        let purchased: PostgresQuery = """
            SELECT DISTINCT environment, original_transaction_id FROM transactions
            WHERE app_id = \(app.appID) AND account_id = \(from.rawValue)
            """
        for query in [owned, purchased] {
            for row in try connection.query(query) { keys.insert(try chainKey(row)) }
        }
        keys.formUnion(try credits(of: from, appID: app.appID, on: connection).keys)
        guard !keys.isEmpty else { return ([], 0) }
        let sorted = keys.sorted()
        try ChainRows.lock(sorted, appID: app.appID, on: connection)
        let stored = try ChainRows.loadForUpdate(sorted, appID: app.appID, on: connection)
        let credits = try credits(of: from, appID: app.appID, on: connection)
        let snapshot = LedgerSnapshot(chains: stored.chains)
        let planned = Ledger.writes(
            merging: from, into: into, snapshot: snapshot, credits: credits, app: app.definition, cause: cause,
            now: now)
        _ = try LedgerStore.write(
            planned, snapshot: snapshot, states: stored.states, app: app, reference: .none,
            environment: sorted[0].environment, cause: cause, now: now, on: connection)
        let moved = planned.decision.entries.filter { $0.kind == .credit }.reduce(Int64(0)) {
            $0.saturatingAdding($1.credits ?? 0)
        }
        return (planned.decision.bindingChanges.map(\.chain), moved)
    }

    /// `account`'s positive credit balances, by chain.
    private static func credits(of account: AccountID, appID: Int64, on connection: PostgresConnection) throws
        -> [ChainKey: Int64]
    {
        var found: [ChainKey: Int64] = [:]
        for row in try connection.query(
            """
            SELECT environment, original_transaction_id, sum(credits)::bigint FROM account_credit_entries
            WHERE app_id = \(appID) AND account_id = \(account.rawValue)
            GROUP BY environment, original_transaction_id HAVING sum(credits) > 0
            """)
        {
            found[try chainKey(row)] = try row.decode(Int64.self, at: 2)
        }
        return found
    }

    private static func chainKey(_ row: PostgresRow) throws -> ChainKey {
        ChainKey(
            environment: try .stored(row.decode(String.self, at: 0)),
            chainID: try row.decode(String.self, at: 1))
    }

    /// Moves `from`'s grants that still give or will give access (not revoked, not ended) to `into`: the row moves
    /// (deleted and inserted under the other account: the account is its distribution value), and the grant's chain
    /// records a `transfer_out` and a `transfer_in` entry, linked into the hash chain.
    private static func moveGrants(
        _ from: AccountID, into: AccountID, app: StoredApp, actor: String, now: Instant,
        on connection: PostgresConnection
    ) throws -> [String] {
        let moved = try connection.query(
            """
            DELETE FROM entitlement_grants
            WHERE app_id = \(app.appID) AND account_id = \(from.rawValue) AND revoked_at IS NULL
              AND ends_at > \(timestamp(now))
            RETURNING grant_id::text, environment, entitlement_id, \(milliseconds("starts_at")),
                \(milliseconds("ends_at")), reason, granted_by
            """)
        var ids: [String] = []
        var events: [WebhookEventDraft] = []
        for row in moved {
            let grant = EntitlementGrant(
                grantID: try row.decode(String.self, at: 0), account: into,
                entitlementID: try row.decode(String.self, at: 2),
                environment: try .stored(row.decode(String.self, at: 1)),
                startsAt: Instant(millisecondsSince1970: try row.decode(Int64.self, at: 3)),
                endsAt: Instant(millisecondsSince1970: try row.decode(Int64.self, at: 4)))
            // The idempotency key stays with the account that used it (`from`): it names a request of that account.
            _ = try connection.query(
                """
                INSERT INTO entitlement_grants (app_id, account_id, grant_id, environment, entitlement_id, starts_at,
                    ends_at, reason, granted_by)
                VALUES (\(app.appID), \(into.rawValue), \(grant.grantID)::uuid, \(grant.environment.rawValue),
                    \(grant.entitlementID), \(timestamp(grant.startsAt)), \(timestamp(grant.endsAt)),
                    \(try row.decode(String.self, at: 5)), \(try row.decode(String.self, at: 6)))
                """)
            _ = try connection.query(EntitlementPeriodRows.removal(ofGrant: grant, from: from, appID: app.appID))
            try EntitlementPeriodRows.replace(grantOf: grant, appID: app.appID, on: connection)
            try writeGrantTransfer(grant, from: from, actor: actor, app: app, now: now, on: connection)
            events += grant.mergeEvents(from: from, at: now, in: app.definition)
            ids.append(grant.grantID)
        }
        if !ids.isEmpty {
            _ = try connection.query(AccountRows.ensure(into, appID: app.appID))
            try WebhookOutbox.write(
                events, cause: WebhookEventCause(kind: .admin, id: "merge"), moments: [], app: app, now: now,
                on: connection)
        }
        return ids.sorted()
    }

    /// An app purchase of an app: its environment and `appTransactionId`.
    private typealias AppTransactionKey = (environment: String, id: String)

    /// The app purchases `account` has claimed (`app_transaction_claims`), each locked as a claim locks it, in key
    /// order. A multi-shard read on Citus (the table is distributed by app purchase), by the account index.
    private static func lockAppTransactions(
        claimedBy account: AccountID, app: StoredApp, on connection: PostgresConnection
    ) throws -> [AppTransactionKey] {
        var claimed: [AppTransactionKey] = []
        for row in try connection.query(
            """
            SELECT DISTINCT environment, app_transaction_id FROM app_transaction_claims
            WHERE app_id = \(app.appID) AND account_id = \(account.rawValue)
            ORDER BY environment, app_transaction_id
            """)
        {
            claimed.append((try row.decode(String.self, at: 0), try row.decode(String.self, at: 1)))
        }
        for (environment, id) in claimed {
            _ = try connection.query(
                """
                SELECT pg_advisory_xact_lock(hashtextextended('app-transaction:' || \(app.appID)::text || ':' ||
                    \(environment) || ':' || \(id), 0))
                """)
        }
        return claimed
    }

    /// Moves the app purchases `from` owns (`app_transaction_claims`, append-only: the latest claim is the owner's)
    /// to `into`: each of `claimed` (locked) whose latest claim is `from`'s gets a claim by `into` copying what the
    /// store signed, so its owner is `into` and its history still shows `from`'s claim. Each is read and written on
    /// its own shard.
    private static func moveAppTransactionClaims(
        _ claimed: [AppTransactionKey], from: AccountID, into: AccountID, app: StoredApp, now: Instant,
        on connection: PostgresConnection
    ) throws {
        var moved = false
        for (environment, id) in claimed {
            let latest = try connection.query(
                """
                SELECT sequence, account_id FROM app_transaction_claims
                WHERE app_id = \(app.appID) AND environment = \(environment) AND app_transaction_id = \(id)
                ORDER BY sequence DESC LIMIT 1
                """
            ).first
            guard let latest, try latest.decode(String.self, at: 1) == from.rawValue else { continue }
            if !moved { _ = try connection.query(AccountRows.ensure(into, appID: app.appID)) }
            moved = true
            _ = try connection.query(
                """
                INSERT INTO app_transaction_claims (app_id, environment, app_transaction_id, sequence, account_id,
                    claimed_at, original_purchase_date, preorder_date, original_application_version, signed_date,
                    signed_app_transaction)
                SELECT app_id, environment, app_transaction_id, sequence + 1, \(into.rawValue), \(timestamp(now)),
                    original_purchase_date, preorder_date, original_application_version, signed_date,
                    signed_app_transaction
                FROM app_transaction_claims
                WHERE app_id = \(app.appID) AND environment = \(environment) AND app_transaction_id = \(id)
                  AND sequence = \(try latest.decode(Int32.self, at: 0))
                """)
        }
    }

    /// Who merged, as a moved grant's transfer entries hold it in `reason` (hashed with the entry).
    private struct EntryReason: Encodable {
        var actor: String
        var reason: String
    }

    private static func writeGrantTransfer(
        _ grant: EntitlementGrant, from: AccountID, actor: String, app: StoredApp, now: Instant,
        on connection: PostgresConnection
    ) throws {
        let product = EntitlementGrant.product(for: grant.entitlementID, in: app.definition)?.productID ?? ""
        let entryReason = try StoreJSON.encode(EntryReason(actor: actor, reason: "account_merge"))
        for (kind, account, end) in [("transfer_out", from, nil), ("transfer_in", grant.account, grant.endsAt)] {
            let key = "\(kind):\(grant.chainID):\(from.rawValue)->\(grant.account.rawValue)"
            _ = try connection.query(
                """
                INSERT INTO ledger_entries (app_id, idempotency_key, kind, account_id, environment,
                    original_transaction_id, transaction_id, product_id, entitlement_ids, credits, effective_at,
                    period_end, reason)
                VALUES (\(app.appID), \(key), \(kind), \(account.rawValue), \(grant.environment.rawValue),
                    \(grant.chainID), \(grant.grantID), \(product),
                    \(PostgresArrayText.strings([grant.entitlementID]))::text[], NULL, \(timestamp(now)),
                    \(timestamp(end)), \(entryReason))
                ON CONFLICT (app_id, environment, original_transaction_id, idempotency_key) DO NOTHING
                """)
        }
        _ = try connection.query(
            LedgerChainRows.link(grant.chainKey, appID: app.appID, submissionID: nil, notificationID: nil))
    }

    /// Records that `from` now means `into`, and re-points the aliases into `from` at `into`.
    private static func recordAlias(
        _ from: AccountID, into: AccountID, app: StoredApp, actor: String, now: Instant,
        on connection: PostgresConnection
    ) throws {
        _ = try connection.query(
            """
            UPDATE account_aliases SET merged_into = \(into.rawValue)
            WHERE app_id = \(app.appID) AND merged_into = \(from.rawValue)
            """)
        _ = try connection.query(
            """
            INSERT INTO account_aliases (app_id, account_id, merged_into, merged_by, merged_at)
            VALUES (\(app.appID), \(from.rawValue), \(into.rawValue), \(actor), \(timestamp(now)))
            """)
    }
}
