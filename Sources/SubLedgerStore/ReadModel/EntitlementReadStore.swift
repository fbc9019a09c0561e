import PostgresLibPQ
import SubLedgerCore

/// The entitlement read model (`account_entitlement_periods`): the entitlement reads it answers, and the
/// backfill of accounts from before it. `LedgerStore.apply` keeps it current, in each apply's transaction.
public struct EntitlementReadStore: Sendable {
    public let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// The one statement an entitlement read sends first (`EntitlementPeriodRows.read`), with its parameters: for
    /// benchmarks that run the same SQL outside the service (`subledger-bench read-sql`).
    public static func statement(of account: AccountID, appID: Int64, at instant: Instant) -> PostgresQuery {
        EntitlementPeriodRows.read(account, appID: appID, at: instant)
    }

    /// An entitlement read: what `account` holds at `instant` and its credit balance, in one round trip.
    ///
    /// Answered from the read model (`account_entitlement_periods`: no chain snapshot is decoded) when it
    /// covers the account; otherwise (an account from before the read model that is not backfilled yet, or a
    /// non-renewing purchase) from the chains, in a second round trip, exactly as `LedgerStore.holdings(of:app:)` and
    /// `Ledger.entitlements(for:at:chains:app:)` do. A read never writes, so it runs as well on a hot standby:
    /// `subledger poll` backfills the accounts still listed (`EntitlementBackfill`).
    public func read(
        of account: AccountID, app: StoredApp, at instant: Instant
    ) async throws -> (entitlements: [Entitlement], credits: Int64) {
        // The read model's statement alone first: most reads end here, with no hop to a connection's thread.
        let stored = try await EntitlementPeriodRows.read(account, appID: app.appID, at: instant, on: pool)
        if let periods = stored.periods,
            let entitlements = Ledger.entitlements(from: periods, for: account, at: instant, app: app.definition)
        {
            return (
                Ledger.entitlements(entitlements, granted: stored.grants, at: instant, app: app.definition),
                stored.credits
            )
        }
        return try await pool.withConnection { connection in
            let holdings = try LedgerStore.holdings(of: account, appID: app.appID, on: connection)
            let entitlements = Ledger.entitlements(
                for: account, at: instant, chains: holdings.chains, app: app.definition)
            return (
                Ledger.entitlements(entitlements, granted: stored.grants, at: instant, app: app.definition),
                holdings.credits
            )
        }
    }

    /// `read(of:app:at:)`'s first step for a caller that is not a task (the HTTP server's event loops): the read
    /// model's statement alone, sent from the calling thread. `completion` gets the answer, or nil when the
    /// account needs the chains (not backfilled yet, or a period the model cannot answer): then call
    /// `read(of:app:at:)`. It runs on the readiness thread of the connection's socket, or the connection's own thread.
    public func readFromModel(
        of account: AccountID, app: StoredApp, at instant: Instant,
        completion: @escaping @Sendable (Result<(entitlements: [Entitlement], credits: Int64)?, any Error>) -> Void
    ) {
        let appID = app.appID
        let definition = app.definition
        pool.query(EntitlementPeriodRows.read(account, appID: appID, at: instant)) { outcome in
            completion(
                Result {
                    let stored = try EntitlementPeriodRows.parseRead(outcome.get(), account, at: instant)
                    guard let periods = stored.periods,
                        let entitlements = Ledger.entitlements(
                            from: periods, for: account, at: instant, app: definition)
                    else { return nil }
                    return (
                        Ledger.entitlements(entitlements, granted: stored.grants, at: instant, app: definition),
                        stored.credits
                    )
                })
        }
    }

    /// Writes the entitlement periods of every chain `account` owns or has owned, and takes the account off
    /// the backfill list (`account_entitlement_backfill`).
    public func backfill(of account: AccountID, app: StoredApp) async throws {
        try await pool.transaction { connection in
            try EntitlementPeriodRows.backfill(account, app: app, on: connection)
        }
    }

    /// Backfills up to `limit` accounts of `app` still on the backfill list, one transaction each; returns
    /// how many. Run until it returns 0 to complete the read model of a database migrated to it; reads work
    /// meanwhile (an account not backfilled is answered from the chains).
    @discardableResult
    public func backfill(app: StoredApp, limit: Int = 1_000) async throws -> Int {
        let pending = try await pool.query(
            EntitlementPeriodRows.pendingAccounts(appID: app.appID, limit: max(0, limit)))
        var done = 0
        for row in pending {
            try await backfill(of: try storedAccount(row.decode(String.self, at: 0)), app: app)
            done += 1
        }
        return done
    }
}
