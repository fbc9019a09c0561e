import PostgresLibPQ
import SubLedgerCore

/// The `accounts` table: an app's accounts, created when first seen.
enum AccountRows {
    static func ensure(_ account: AccountID, appID: Int64) -> PostgresQuery {
        "INSERT INTO accounts (app_id, account_id) VALUES (\(appID), \(account.rawValue)) ON CONFLICT DO NOTHING"
    }

    /// Creates the accounts of `app` that do not exist yet (sorted, so concurrent callers lock in one order), and
    /// refuses an erased one (`AccountErasureConflict.erased`, docs/guides/accounts.md, "Erasing an account"): the
    /// one place a write naming an account (an order, a consent or usage report, a claim, a submission) makes it
    /// known. Each account's lock is taken shared first (an erasure holds it exclusively), so a write racing the
    /// erasure waits for it and is refused. An erased id's row is gone, so only an account created here is looked
    /// up among the erasures: a write for a known account pays nothing more than its lock, in the same round trip.
    static func ensure(_ accounts: some Collection<AccountID>, app: StoredApp, on connection: PostgresConnection)
        throws
    {
        let sorted = accounts.sorted(by: { $0.rawValue < $1.rawValue })
        let created: [AccountID] = try connection.run { batch in
            let indexes = sorted.map { account in
                batch.append(AccountAliasRows.lock(account, appID: app.appID, exclusive: false))
                return batch.append(
                    """
                    INSERT INTO accounts (app_id, account_id) VALUES (\(app.appID), \(account.rawValue))
                    ON CONFLICT DO NOTHING RETURNING account_id
                    """)
            }
            return Batched { rows in zip(sorted, indexes).filter { !rows[$0.1].isEmpty }.map(\.0) }
        }
        for account in created where try AccountErasureStore.isErased(account, app: app, on: connection) {
            throw AccountErasureConflict.erased
        }
    }

    /// `ensure`'s statements, appended to `batch`.
    static func ensure(_ accounts: some Collection<AccountID>, appID: Int64, into batch: inout PostgresBatch)
        -> Batched<Void>
    {
        for account in accounts.sorted(by: { $0.rawValue < $1.rawValue }) {
            batch.append(ensure(account, appID: appID))
        }
        return .none
    }

    /// The account whose id is `id`, if the app has one: a statement that names the account, so on a Citus cluster
    /// it goes to the account's shard (an `= ANY` of several ids would ask every shard).
    static func named(_ id: String, appID: Int64) -> PostgresQuery {
        "SELECT account_id FROM accounts WHERE app_id = \(appID) AND account_id = \(id)"
    }

    /// The account SubLedger gave `token` (`account_tokens`, written back to Apple), if any. A separate statement
    /// rather than a union: `accounts` is distributed by account, `account_tokens` by token, and each statement
    /// names its table's distribution value, so on a Citus cluster each goes to one shard.
    static func token(_ token: String, appID: Int64) -> PostgresQuery {
        """
        SELECT token::text, account_id FROM account_tokens WHERE app_id = \(appID) AND token = \(token)::text::uuid
        """
    }

    /// The accounts of the app whose id equals one of `tokens` (an app account token or username that is
    /// an account id), or that SubLedger gave one of `tokens` (`account_tokens`).
    static func accounts(
        named tokens: [AccountToken], appID: Int64, on connection: PostgresConnection
    ) throws -> [AccountToken: AccountID] {
        try connection.run { accounts(named: tokens, appID: appID, into: &$0) }
    }

    /// `accounts(named:appID:on:)`'s statements, appended to `batch`: one per token and table (each goes to one
    /// shard on a Citus cluster), all in the caller's round trip.
    static func accounts(
        named tokens: [AccountToken], appID: Int64, into batch: inout PostgresBatch
    ) -> Batched<[AccountToken: AccountID]> {
        guard !tokens.isEmpty else { return .constant([:]) }
        var byRaw: [String: AccountToken] = [:]
        for token in tokens { byRaw[token.rawValue] = token }
        let raws = byRaw.keys.sorted()
        let indexes = raws.map { batch.append(named($0, appID: appID)) }
        let tokenIndexes = raws.filter(UUIDFormat.isUUID).map { batch.append(token($0, appID: appID)) }
        return Batched { rows in
            var found: [AccountToken: AccountID] = [:]
            for index in tokenIndexes {
                for row in rows[index] {
                    let raw = try row.decode(String.self, at: 0)
                    if let token = byRaw[raw], let account = try? AccountID(row.decode(String.self, at: 1)) {
                        found[token] = account
                    }
                }
            }
            // An account whose id is the token itself wins over a token given to another account.
            for index in indexes {
                for row in rows[index] {
                    let raw = try row.decode(String.self, at: 0)
                    if let token = byRaw[raw], let account = try? AccountID(raw) { found[token] = account }
                }
            }
            return found
        }
    }
}
