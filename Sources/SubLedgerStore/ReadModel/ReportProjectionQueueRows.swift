import PostgresLibPQ
import SubLedgerCore

/// The report projection queue (schema step 32): the chains whose report aggregates are due for a refresh. The
/// ledger's writers add rows in their own transactions; the report projector (`SubLedgerReports.ReportProjector`)
/// refreshes the aggregates and deletes the rows. The queue is append-only (no unique chain key), so a writer never
/// waits on a row another writer or a projector holds.
enum ReportProjectionQueueRows {
    /// Records that `chains` of `appID` changed at `now`, appended to `batch`: one row per chain, in one statement.
    static func enqueue(_ chains: [ChainKey], appID: Int64, now: Instant, into batch: inout PostgresBatch) {
        guard !chains.isEmpty else { return }
        let environments = PostgresArrayText.strings(chains.map(\.environment.rawValue))
        let originals = PostgresArrayText.strings(chains.map(\.chainID))
        batch.append(
            """
            INSERT INTO report_projection_queue (app_id, environment, original_transaction_id, changed_at)
            SELECT \(appID), c.environment, c.chain, \(timestamp(now))
            FROM unnest(\(environments)::text::text[], \(originals)::text::text[]) AS c(environment, chain)
            """)
    }

    /// Records every chain of app `appID` as changed now (the database's clock): what `catalog apply` sends, since
    /// the catalog's price points and product types are inputs of every chain's aggregates. One row per chain; the
    /// projector refreshes them in batches while applies go on.
    static func enqueueApp(_ appID: Int64) -> PostgresQuery {
        """
        INSERT INTO report_projection_queue (app_id, environment, original_transaction_id, changed_at)
        SELECT app_id, environment, original_transaction_id, now() FROM chains WHERE app_id = \(appID)
        ORDER BY environment, original_transaction_id
        """
    }
}

extension LedgerStore {
    /// Queues every chain of `app` for the report projector, in one transaction: what a change to the aggregates'
    /// inputs other than the ledger (the catalog's price points and product types) calls. The reports show the
    /// change once the projector has caught up (`as_of`, docs/explanation/reports.md).
    public func requeueReportAggregates(app: StoredApp) async throws {
        try await pool.transaction { connection in
            try connection.query(ReportProjectionQueueRows.enqueueApp(app.appID))
        }
    }
}
