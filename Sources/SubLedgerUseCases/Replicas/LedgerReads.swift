import SubLedgerCore
import SubLedgerStore

/// Where the reads that may come from a replica go: entitlements, subscriptions, transactions, the reports and
/// the admin page. Through `ReadReplicas` when standbys are configured, else to the primary.
public struct LedgerReads: Sendable {
    let primary: LedgerStore
    let replicas: ReadReplicas?

    public init(primary: LedgerStore, replicas: ReadReplicas?) {
        self.primary = primary
        self.replicas = replicas
    }

    /// Runs `body` on the ledger that answers a read presenting `token` (a consistency token honoured, nil: none).
    public func read<T: Sendable>(
        token: ConsistencyTokens.Token?, _ body: @Sendable (LedgerStore) async throws -> T
    ) async throws -> T {
        guard let replicas else { return try await body(primary) }
        return try await replicas.read(token: token, body)
    }

    /// What `account` holds of `app` at `instant` and its credits, from the read model of the database that
    /// answers this read (a standby's or the primary's).
    public func entitlements(
        of account: AccountID, app: AppDirectory.App, at instant: Instant, token: ConsistencyTokens.Token?
    ) async throws -> (entitlements: [Entitlement], credits: Int64) {
        try await read(token: token) { store in
            try await EntitlementReadStore(pool: store.pool).read(of: account, app: app, at: instant)
        }
    }
}
