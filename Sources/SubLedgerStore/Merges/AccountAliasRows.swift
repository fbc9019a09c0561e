import PostgresLibPQ
import SubLedgerCore

/// The `account_aliases` table (schema step 46): an account merged into another, and each account's lock.
enum AccountAliasRows {
    /// The advisory transaction lock of one account of an app: shared by the applies it submits, exclusive for a
    /// merge that moves it or into it. Taken before any chain's lock, so a merge and an apply cannot deadlock.
    static func lock(_ account: AccountID, appID: Int64, exclusive: Bool) -> PostgresQuery {
        let lockKey = "account:\(appID):\(account.rawValue)"
        return exclusive
            ? "SELECT pg_advisory_xact_lock(hashtextextended(\(lockKey), 0))"
            : "SELECT pg_advisory_xact_lock_shared(hashtextextended(\(lockKey), 0))"
    }

    /// The account `account` was merged into, or nil.
    static func target(of account: AccountID, appID: Int64) -> PostgresQuery {
        "SELECT merged_into FROM account_aliases WHERE app_id = \(appID) AND account_id = \(account.rawValue)"
    }

    /// Locks `account` (shared) and tells the account it now is: the one it was merged into, or itself.
    /// `erasure` holds the account's erasure digests (`AccountErasureKeys.digests`), taken before the batch.
    static func lockAndResolve(
        _ account: AccountID?, erasure: AccountErasureDigests?, appID: Int64, into batch: inout PostgresBatch
    ) -> Batched<AccountID?> {
        guard let account, let erasure else { return .constant(nil) }
        batch.append(lock(account, appID: appID, exclusive: false))
        let index = batch.append(target(of: account, appID: appID))
        let erasedIndex = batch.append(AccountErasureStore.erased(erasure, appID: appID))
        return Batched { rows in
            // Erased meanwhile (a submission stored before the erasure, applied after): refused, as after it.
            guard rows[erasedIndex].first == nil else { throw AccountErasureConflict.erased }
            return try rows[index].first.map { try storedAccount($0.decode(String.self, at: 0)) } ?? account
        }
    }

    /// The aliases among `accounts`: merged id → the id it was merged into. One statement per account, in one round
    /// trip: each goes to the account's shard on a Citus cluster, where `= ANY` of several ids asks every shard.
    static func targets(of accounts: Set<AccountID>, appID: Int64, on connection: PostgresConnection) throws
        -> [AccountID: AccountID]
    {
        guard !accounts.isEmpty else { return [:] }
        let sorted = accounts.sorted { $0.rawValue < $1.rawValue }
        return try connection.run { batch in
            let indices = sorted.map { batch.append(target(of: $0, appID: appID)) }
            return Batched { rows in
                var found: [AccountID: AccountID] = [:]
                for (account, index) in zip(sorted, indices) {
                    if let row = rows[index].first {
                        found[account] = try storedAccount(row.decode(String.self, at: 0))
                    }
                }
                return found
            }
        }
    }

    /// Replaces, in `snapshot`, the accounts that app account tokens and orders name by what they were merged into.
    static func resolve(_ snapshot: inout LedgerSnapshot, appID: Int64, on connection: PostgresConnection) throws {
        let named = Set(snapshot.accountsByToken.values).union(snapshot.orders.map(\.account))
        let targets = try targets(of: named, appID: appID, on: connection)
        guard !targets.isEmpty else { return }
        snapshot.accountsByToken = snapshot.accountsByToken.mapValues { targets[$0] ?? $0 }
        for index in snapshot.orders.indices {
            if let target = targets[snapshot.orders[index].account] { snapshot.orders[index].account = target }
        }
    }
}
