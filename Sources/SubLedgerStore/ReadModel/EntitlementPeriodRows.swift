import PostgresLibPQ
import SubLedgerCore

/// The `account_entitlement_periods` table: the entitlement read model (`EntitlementPeriod`), and the
/// `account_entitlement_backfill` list of accounts whose periods may be incomplete.
enum EntitlementPeriodRows {
    /// Rewrites the periods of each of `chains` as derived from the chain now, with the chains locked (the
    /// backfill). One statement per chain.
    static func refresh(_ chains: [ChainSnapshot], app: StoredApp, on connection: PostgresConnection) throws {
        let periods = chains.map { ChainEntitlementPeriods(of: $0, in: app.definition) }
        try connection.run { write(periods, appID: app.appID, into: &$0) }
    }

    /// Replaces each chain's periods with `chains`' (what `Ledger.writes` derived, for `LedgerStore.apply`
    /// in the transaction that writes the chains), appended to `batch`: `replace`'s statements for each chain.
    static func write(_ chains: [ChainEntitlementPeriods], appID: Int64, into batch: inout PostgresBatch)
        -> Batched<Void>
    {
        for chain in chains {
            for statement in replace(chain, appID: appID) {
                batch.append(statement)
            }
        }
        return .none
    }

    /// Replaces the periods of `chain`'s chain with its periods: for each account that holds or held the chain, in
    /// account order, its old periods of the chain deleted and its new ones inserted. Every statement names one
    /// account, so with the periods distributed by account (Citus) each goes to that account's shard.
    static func replace(_ chain: ChainEntitlementPeriods, appID: Int64) -> [PostgresQuery] {
        let environment = chain.chain.environment.rawValue
        let original = chain.chain.chainID
        let accounts = chain.accounts.union(chain.periods.map(\.account)).sorted { $0.rawValue < $1.rawValue }
        var statements: [PostgresQuery] = []
        for account in accounts {
            statements.append(
                """
                DELETE FROM account_entitlement_periods
                WHERE app_id = \(appID) AND account_id = \(account.rawValue) AND environment = \(environment)
                  AND original_transaction_id = \(original)
                """)
            let periods = chain.periods.filter { $0.account == account }
            guard !periods.isEmpty else { continue }
            var rows: PostgresQuery = ""
            for (index, period) in periods.enumerated() {
                let grant = period.grant
                let row: PostgresQuery = """
                    (\(appID), \(environment), \(original), \(account.rawValue), \(period.from.millisecondsSince1970),
                     \(period.until?.millisecondsSince1970), \(grant?.transactionID), \(grant?.productID),
                     \(grant?.state.name), \(grant?.expiresAt?.millisecondsSince1970),
                     \(grant?.gracePeriodExpiresAt?.millisecondsSince1970), \(grant?.willAutoRenew),
                     \(grant?.ownershipType.rawValue))
                    """
                rows = index == 0 ? row : "\(rows), \(row)"
            }
            statements.append(
                """
                INSERT INTO account_entitlement_periods (app_id, environment, original_transaction_id, account_id,
                    valid_from, valid_until, transaction_id, product_id, state, expires_at, grace_expires_at,
                    will_auto_renew, ownership_type)
                VALUES \(rows)
                """)
        }
        return statements
    }

    /// The statements that put `grant`'s row in the read model (schema step 53), in the transaction that creates,
    /// revokes or moves the grant: its account's row of the grant deleted, and inserted again while the grant gives
    /// access for some time (one revoked before it began gives none). Both name the grant's account.
    static func replace(grantOf grant: EntitlementGrant, appID: Int64) -> [PostgresQuery] {
        var statements = [removal(ofGrant: grant, from: grant.account, appID: appID)]
        let end = grant.accessEndsAt
        if end > grant.startsAt {
            statements.append(
                """
                INSERT INTO account_entitlement_periods (app_id, environment, original_transaction_id, account_id,
                    valid_from, valid_until, transaction_id, state, expires_at, entitlement_id)
                VALUES (\(appID), \(grant.environment.rawValue), \(grant.chainID), \(grant.account.rawValue),
                    \(grant.startsAt.millisecondsSince1970), \(end.millisecondsSince1970), \(grant.grantID), 'granted',
                    \(end.millisecondsSince1970), \(grant.entitlementID))
                """)
        }
        return statements
    }

    /// `replace(grantOf:appID:)`'s statements run on `connection`.
    static func replace(grantOf grant: EntitlementGrant, appID: Int64, on connection: PostgresConnection) throws {
        for statement in replace(grantOf: grant, appID: appID) {
            _ = try connection.query(statement)
        }
    }

    /// Deletes `account`'s row of `grant` (a grant moved to another account by a merge).
    static func removal(ofGrant grant: EntitlementGrant, from account: AccountID, appID: Int64) -> PostgresQuery {
        """
        DELETE FROM account_entitlement_periods
        WHERE app_id = \(appID) AND account_id = \(account.rawValue) AND environment = \(grant.environment.rawValue)
          AND original_transaction_id = \(grant.chainID)
        """
    }

    /// An entitlement read from the read model (`EntitlementReadStore.read(of:app:at:)`): the account's credit
    /// balance (column 0), whether its periods may be incomplete (1), and each period containing `instant` from
    /// column 2: environment, original transaction id, transaction id, product id, state, expiry, grace expiry, will
    /// auto-renew, ownership type, entitlement id, start. One row with nulls from column 2 when none contains it. A
    /// grant's row (state `granted`) names its entitlement instead of a product.
    static func read(_ account: AccountID, appID: Int64, at instant: Instant) -> PostgresQuery {
        let milliseconds = instant.millisecondsSince1970
        return """
            SELECT credit.balance, pending.account_id IS NOT NULL, p.environment, p.original_transaction_id,
                p.transaction_id, p.product_id, p.state, p.expires_at, p.grace_expires_at, p.will_auto_renew,
                p.ownership_type, p.entitlement_id, p.valid_from
            FROM \(EntryRows.creditBalance(of: account, appID: appID)) AS credit
              LEFT JOIN account_entitlement_backfill pending
                ON pending.app_id = \(appID) AND pending.account_id = \(account.rawValue)
              LEFT JOIN account_entitlement_periods p ON p.app_id = \(appID) AND p.account_id = \(account.rawValue)
                AND p.valid_from <= \(milliseconds) AND (p.valid_until IS NULL OR p.valid_until > \(milliseconds))
            """
    }

    /// What `read(_:appID:at:)` found: the balance, and the periods at the instant unless the read must go to the
    /// chains (`nil`: the account is not backfilled yet, or a period needs the chains).
    static func read(
        _ account: AccountID, appID: Int64, at instant: Instant, on connection: PostgresConnection
    ) throws -> (credits: Int64, periods: [EntitlementPeriod]?, pending: Bool, grants: [EntitlementGrant]) {
        try parseRead(connection.query(read(account, appID: appID, at: instant)), account, at: instant)
    }

    /// `read` through the pool: one statement, no connection thread in between (`PostgresPool.query`).
    static func read(
        _ account: AccountID, appID: Int64, at instant: Instant, on pool: PostgresPool
    ) async throws -> (credits: Int64, periods: [EntitlementPeriod]?, pending: Bool, grants: [EntitlementGrant]) {
        try parseRead(await pool.query(read(account, appID: appID, at: instant)), account, at: instant)
    }

    static func parseRead(
        _ rows: PostgresRows, _ account: AccountID, at instant: Instant
    ) throws -> (credits: Int64, periods: [EntitlementPeriod]?, pending: Bool, grants: [EntitlementGrant]) {
        let stored = try parseStored(rows, account, at: instant)
        let answerable = !stored.pending && !stored.periods.contains(where: \.needsChains)
        return (stored.credits, answerable ? stored.periods : nil, stored.pending, stored.grants)
    }

    /// `read`'s rows as they are: the balance, whether the account is still to be backfilled, and every period
    /// containing `instant`, those that need the chains (no grant) included, so that a caller can load just
    /// their chains.
    static func parseStored(
        _ rows: PostgresRows, _ account: AccountID, at instant: Instant
    ) throws -> (credits: Int64, periods: [EntitlementPeriod], pending: Bool, grants: [EntitlementGrant]) {
        var credits: Int64 = 0
        var pending = false
        var periods: [EntitlementPeriod] = []
        var grants: [EntitlementGrant] = []
        for row in rows {
            credits = try row.decode(Int64.self, at: 0)
            pending = try row.decode(Bool.self, at: 1)
            guard let environment = try row.decode(String?.self, at: 2).map(StoreEnvironment.stored) else { continue }
            let state = try row.decode(String?.self, at: 6)
            if state == "granted" {
                grants.append(try grant(from: row, of: account, environment: environment))
                continue
            }
            let key = ChainKey(environment: environment, chainID: try row.decode(String.self, at: 3))
            guard let state else {
                periods.append(EntitlementPeriod(account: account, chain: key, from: instant, until: nil, grant: nil))
                continue
            }
            let grant = EntitlementPeriod.Grant(
                transactionID: try row.decode(String.self, at: 4),
                productID: try row.decode(String.self, at: 5),
                state: try storedGrantState(state),
                expiresAt: try row.decode(Int64?.self, at: 7).map(Instant.init(millisecondsSince1970:)),
                gracePeriodExpiresAt: try row.decode(Int64?.self, at: 8).map(Instant.init(millisecondsSince1970:)),
                willAutoRenew: try row.decode(Bool?.self, at: 9),
                ownershipType: try storedOwnershipType(row.decode(String.self, at: 10)))
            periods.append(EntitlementPeriod(account: account, chain: key, from: instant, until: nil, grant: grant))
        }
        return (credits, periods, pending, grants)
    }

    /// A grant's row of `read` (state `granted`): the grant as far as the read model holds it, its access from
    /// its start to its end (`endsAt` is the end of access: a revocation before the granted end is that end).
    private static func grant(
        from row: PostgresRow, of account: AccountID, environment: StoreEnvironment
    ) throws -> EntitlementGrant {
        EntitlementGrant(
            grantID: try row.decode(String.self, at: 4), account: account,
            entitlementID: try row.decode(String.self, at: 11), environment: environment,
            startsAt: Instant(millisecondsSince1970: try row.decode(Int64.self, at: 12)),
            endsAt: Instant(millisecondsSince1970: try row.decode(Int64.self, at: 7)))
    }

    private static func storedGrantState(_ name: String) throws -> ChainState {
        switch name {
        case "active": return .active
        case "grace_period": return .gracePeriod
        default: throw StoreError(code: .corruptRow, message: "unknown entitlement period state '\(name)'")
        }
    }

    private static func storedOwnershipType(_ raw: String) throws -> OwnershipType {
        guard let type = OwnershipType(rawValue: raw) else {
            throw StoreError(code: .corruptRow, message: "unknown ownership type '\(raw)'")
        }
        return type
    }

    // MARK: - Backfill

    /// The accounts of `appID` whose periods may be incomplete, in account order, at most `limit`.
    static func pendingAccounts(appID: Int64, limit: Int) -> PostgresQuery {
        """
        SELECT account_id FROM account_entitlement_backfill WHERE app_id = \(appID) ORDER BY account_id LIMIT \(limit)
        """
    }

    /// Writes the periods of every chain `account` owns or has owned and takes it off the backfill list, in
    /// the caller's transaction: the chains are locked as `LedgerStore.apply` locks them, so a concurrent
    /// apply runs before or after, never in between.
    static func backfill(_ account: AccountID, app: StoredApp, on connection: PostgresConnection) throws {
        let keys = try connection.query(
            """
            SELECT DISTINCT environment, original_transaction_id FROM ownership_bindings
            WHERE app_id = \(app.appID) AND account_id = \(account.rawValue)
            """
        ).map { row in
            ChainKey(
                environment: try StoreEnvironment.stored(row.decode(String.self, at: 0)),
                chainID: try row.decode(String.self, at: 1))
        }
        try ChainRows.lock(keys, appID: app.appID, on: connection)
        let chains = try ChainRows.load(keys, appID: app.appID, forUpdate: true, on: connection)
        try refresh(chains, app: app, on: connection)
        try connection.query(
            "DELETE FROM account_entitlement_backfill WHERE app_id = \(app.appID) AND account_id = \(account.rawValue)")
    }
}
