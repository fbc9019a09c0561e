import PostgresLibPQ
import SubLedgerCore

/// Every per-chain aggregate the reports read (docs/explanation/reports.md), recomputed by one function, so the report
/// projector (`ReportProjector`, the only writer of these tables) cannot forget one and the cost of projecting a
/// chain is in one place.
enum ChainAggregates {
    /// `refresh`'s statements with the plan settings first, run on `connection` in its transaction, with the chains
    /// locked.
    static func refresh(_ chains: [ChainKey], appID: Int64, on connection: PostgresConnection) throws {
        guard !chains.isEmpty else { return }
        var batch = PostgresBatch()
        batch.append(plansForThisTransaction)
        refresh(chains, appID: appID, into: &batch)
        _ = try connection.pipeline(batch)
    }

    /// Recomputes every aggregate's rows of `chains` from their transactions, state changes and entries as they
    /// are now, appended to `batch` (after `plansForThisTransaction`, sent earlier in the transaction). The
    /// caller holds the chains' locks, so no apply writes them meanwhile and the rows written are of their
    /// latest state.
    static func refresh(_ chains: [ChainKey], appID: Int64, into batch: inout PostgresBatch) {
        guard !chains.isEmpty else { return }
        // Cohort facts (schema step 17): what `trials` and `retention` read.
        ChainCohortFactsRows.refresh(chains, appID: appID, into: &batch)
        // Money facts and MRR moves (schema step 19): what `revenue` and `mrr` read.
        ChainMoneyFactsRows.refresh(chains, appID: appID, into: &batch)
        // Operational report spans and day counts (schema step 20; no catalog input): `active`, `summary --at`,
        // `churn`.
        OperationalReportRows.refresh(chains, appID: appID, into: &batch)
    }

    /// Each refresh statement inlines a per-chain SQL function over an array of chains. PostgreSQL keeps
    /// choosing a custom plan for such a statement, so it planned the money refresh afresh on every call: 3.4 ms
    /// of planning against 0.8 ms of execution per notification (`scripts/bench` with `BENCH_STATEMENTS=1`). The
    /// generic plan is the same index scans by chain key.
    ///
    /// JIT is off for the same statements: on a ledger of 1,000,000 chains the money refresh's generic plan is
    /// costed at about 109,000 (its estimates are for whole tables, not one chain), above `jit_above_cost`'s
    /// 100,000, so every refresh spent 0.6–1.2 s compiling a statement that runs in about 1 ms.
    ///
    /// Both settings are `SET LOCAL`: they end with the projection's transaction.
    static let plansForThisTransaction: PostgresQuery =
        "SELECT set_config('plan_cache_mode', 'force_generic_plan', true), set_config('jit', 'off', true)"
}
