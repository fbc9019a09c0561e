import PostgresLibPQ
import SubLedgerCore

/// Keeps the reports' per-chain aggregates (docs/explanation/reports.md) from the report projection queue (schema step
/// 32): the only writer of those tables. Applies record the chains they change in the queue in their own transactions,
/// and
/// `catalog apply` records every chain of the app; the projector refreshes them afterwards, so neither waits for
/// the aggregates.
///
/// Each batch is one transaction: it claims the oldest queue rows (`FOR UPDATE SKIP LOCKED`, so any number of
/// projectors share the queue), takes each claimed chain's lock (the apply's own, so the chain's latest committed
/// state is what gets refreshed, and an apply writing it waits for the refresh to commit), refreshes the chains'
/// aggregates and deletes the rows it claimed. A projector that dies mid-batch rolls all of it back and its rows
/// stay queued; a change recorded while a batch runs has a row of its own, which the batch does not delete.
/// Refreshing is idempotent per chain (rows recomputed from the chain's state, entries counted past the chain's
/// `chain_entries_counted` mark), so a chain refreshed twice is counted once.
public struct ReportProjector: Sendable {
    /// How many queue rows a batch claims. Default 500: a batch holds its chains' locks until it commits, so applies
    /// to those chains wait at most one batch.
    public var batchSize: Int

    let pool: PostgresPool

    public init(pool: PostgresPool, batchSize: Int = 500) {
        self.pool = pool
        self.batchSize = batchSize
    }

    /// What one or more batches did.
    public struct Progress: Sendable, Hashable, CustomStringConvertible {
        /// Queue rows projected and deleted.
        public var changes = 0
        /// Chains refreshed (a chain with several rows in one batch is refreshed once).
        public var chains = 0

        /// Nothing done.
        public init() {}

        public var description: String { "report projection: \(changes) changes, \(chains) chains" }
    }

    /// Projects one batch of the oldest changes; `changes` is 0 when none was due (or every due one is being
    /// projected by another projector).
    public func projectBatch() async throws -> Progress {
        let limit = batchSize
        return try await pool.transaction { connection in try Self.projectBatch(limit: limit, on: connection) }
    }

    /// Projects batches until none claims a change: everything recorded before the call (and not claimed by
    /// another projector meanwhile) is in the reports when it returns.
    public func projectAll() async throws -> Progress {
        var total = Progress()
        while !Task.isCancelled {
            let batch = try await projectBatch()
            if batch.changes == 0 { break }
            total.changes += batch.changes
            total.chains += batch.chains
        }
        return total
    }

    /// One batch on `connection`, inside its transaction: two round trips (the claim; the locks, refreshes and
    /// deletion).
    static func projectBatch(limit: Int, on connection: PostgresConnection) throws -> Progress {
        var claimed: [Int64] = []
        var chains: [ChainReference: Void] = [:]
        for row in try connection.query(claim(limit: limit)) {
            claimed.append(try row.decode(Int64.self, at: 0))
            let environment = try row.decode(String.self, at: 2)
            guard let known = StoreEnvironment(rawValue: environment) else {
                throw PostgresError(
                    .decoding, message: "unknown environment '\(environment)' in report_projection_queue")
            }
            let key = ChainKey(environment: known, chainID: try row.decode(String.self, at: 3))
            chains[ChainReference(appID: try row.decode(Int64.self, at: 1), key: key)] = ()
        }
        guard !claimed.isEmpty else { return Progress() }
        let ordered = chains.keys.sorted()
        var batch = PostgresBatch()
        batch.append(ChainAggregates.plansForThisTransaction)
        // In one global order (app, then the apply's own key order), so projectors and applies cannot deadlock.
        for chain in ordered { batch.append(chainLock(chain.lockKey)) }
        for (appID, keys) in Dictionary(grouping: ordered, by: \.appID).sorted(by: { $0.key < $1.key }) {
            ChainAggregates.refresh(keys.map(\.key), appID: appID, into: &batch)
        }
        batch.append(delete(claimed))
        _ = try connection.pipeline(batch)
        var progress = Progress()
        progress.changes = claimed.count
        progress.chains = ordered.count
        return progress
    }

    /// One chain of one app, ordered as the locks are taken.
    struct ChainReference: Hashable, Comparable {
        var appID: Int64
        var key: ChainKey

        /// The key of the chain's advisory lock, as `SubLedgerStore`'s `ChainRows.lock` (every apply) makes it.
        var lockKey: String { "\(appID):\(key.environment.rawValue):\(key.chainID)" }

        static func < (lhs: ChainReference, rhs: ChainReference) -> Bool {
            (lhs.appID, lhs.key) < (rhs.appID, rhs.key)
        }
    }

    /// The oldest `limit` queue rows no other projector holds, locked until this transaction ends.
    static func claim(limit: Int) -> PostgresQuery {
        """
        SELECT change_id, app_id, environment, original_transaction_id FROM report_projection_queue
        ORDER BY change_id LIMIT \(Int64(limit)) FOR UPDATE SKIP LOCKED
        """
    }

    /// The apply's lock of one chain (`ChainRows.lockStatement`): held until this transaction ends.
    static func chainLock(_ key: String) -> PostgresQuery {
        "SELECT pg_advisory_xact_lock(hashtextextended(\(key), 0))"
    }

    /// The rows this batch claimed, and only those.
    static func delete(_ claimed: [Int64]) -> PostgresQuery {
        "DELETE FROM report_projection_queue WHERE change_id = ANY (\(PostgresArrayText.integers(claimed))::text::bigint[])"
    }
}
