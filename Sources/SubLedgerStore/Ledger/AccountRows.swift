import PostgresLibPQ
import SubLedgerCore

/// The `accounts` table: an app's accounts, created when first seen.
enum AccountRows {
    static func ensure(_ account: AccountID, appID: Int64) -> PostgresQuery {
        "INSERT INTO accounts (app_id, account_id) VALUES (\(appID), \(account.rawValue)) ON CONFLICT DO NOTHING"
    }

    /// Creates the accounts that do not exist yet (sorted, so concurrent callers lock in one order).
    static func ensure(_ accounts: some Collection<AccountID>, appID: Int64, on connection: PostgresConnection) throws {
        try connection.run { ensure(accounts, appID: appID, into: &$0) }
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

    static func named(_ ids: String, appID: Int64) -> PostgresQuery {
        "SELECT account_id FROM accounts WHERE app_id = \(appID) AND account_id = ANY (\(ids)::text::text[])"
    }

    /// The accounts that tokens SubLedger gave them (`account_tokens`, written back to Apple) name. A separate
    /// statement rather than a union: the two tables are distributed by account, the lookups are by token.
    static func tokens(_ tokens: String, appID: Int64) -> PostgresQuery {
        """
        SELECT token::text, account_id FROM account_tokens WHERE app_id = \(appID) AND token = ANY (\(tokens)::text::uuid[])
        """
    }

    /// The accounts of the app whose id equals one of `tokens` (an app account token or username that is
    /// an account id), or that SubLedger gave one of `tokens` (`account_tokens`).
    static func accounts(
        named tokens: [AccountToken], appID: Int64, on connection: PostgresConnection
    ) throws -> [AccountToken: AccountID] {
        try connection.run { accounts(named: tokens, appID: appID, into: &$0) }
    }

    /// `accounts(named:appID:on:)`'s statement, appended to `batch`.
    static func accounts(
        named tokens: [AccountToken], appID: Int64, into batch: inout PostgresBatch
    ) -> Batched<[AccountToken: AccountID]> {
        guard !tokens.isEmpty else { return .constant([:]) }
        var byRaw: [String: AccountToken] = [:]
        for token in tokens { byRaw[token.rawValue] = token }
        let index = batch.append(named(PostgresArrayText.strings(byRaw.keys.sorted()), appID: appID))
        let uuids = byRaw.keys.filter(UUIDFormat.isUUID).sorted()
        let tokenIndex = uuids.isEmpty ? nil : batch.append(Self.tokens(PostgresArrayText.strings(uuids), appID: appID))
        return Batched { rows in
            var found: [AccountToken: AccountID] = [:]
            if let tokenIndex {
                for row in rows[tokenIndex] {
                    let raw = try row.decode(String.self, at: 0)
                    if let token = byRaw[raw], let account = try? AccountID(row.decode(String.self, at: 1)) {
                        found[token] = account
                    }
                }
            }
            // An account whose id is the token itself wins over a token given to another account.
            for row in rows[index] {
                let raw = try row.decode(String.self, at: 0)
                if let token = byRaw[raw], let account = try? AccountID(raw) { found[token] = account }
            }
            return found
        }
    }
}
