import PostgresLibPQ
import SubLedgerCore

/// Every per-chain aggregate the reports read (docs/reports.md), kept exact by the writes that change what they
/// summarise. One place calls each aggregate's refresh, so the writers (`LedgerStore.apply`, `catalog apply`, and
/// whatever else changes an aggregate's inputs) cannot forget one, and the cost an apply pays for its aggregates
/// is in one function.
enum ChainAggregates {
    /// Recomputes every aggregate's rows of `chains` from their transactions as they are now: called by
    /// `LedgerStore.apply` after it wrote them, in its transaction, with the chains locked.
    static func refresh(_ chains: [ChainKey], appID: Int64, on connection: PostgresConnection) throws {
        guard !chains.isEmpty else { return }
        try connection.run { batch in
            batch.append(plansForThisTransaction)
            return refresh(chains, appID: appID, into: &batch)
        }
    }

    /// `refresh`'s statements but the plan settings (`plansForThisTransaction`, which the caller sends earlier
    /// in its transaction), appended to `batch`. `LedgerStore.apply` sends them last, after the outbox: the
    /// operational refresh's day counts are rows every apply of a day shares, locked until COMMIT.
    static func refresh(_ chains: [ChainKey], appID: Int64, into batch: inout PostgresBatch) -> Batched<Void> {
        guard !chains.isEmpty else { return .none }
        // Waits while `catalog apply` recomputes the app (`refreshApp`), and holds it off until this commits.
        batch.append(applyLockStatement, [appID])
        // Cohort facts (schema step 17): what `trials` and `retention` read.
        ChainCohortFactsRows.refresh(chains, appID: appID, into: &batch)
        // Money facts and MRR moves (schema step 19): what `revenue` and `mrr` read.
        ChainMoneyFactsRows.refresh(chains, appID: appID, into: &batch)
        // Operational report spans and day counts (schema step 20; no catalog input): `active`, `summary --at`, `churn`.
        OperationalReportRows.refresh(chains, appID: appID, into: &batch)
        return .none
    }

    /// Each refresh statement inlines a per-chain SQL function over an array of chains. PostgreSQL keeps
    /// choosing a custom plan for such a statement, so it planned the money refresh afresh on every apply: 3.4 ms
    /// of planning against 0.8 ms of execution per notification (`scripts/bench` with `BENCH_STATEMENTS=1`). The
    /// generic plan is the same index scans by chain key.
    ///
    /// JIT is off for the same statements: on a ledger of 1,000,000 chains the money refresh's generic plan is
    /// costed at about 109,000 (its estimates are for whole tables, not one chain), above `jit_above_cost`'s
    /// 100,000, so every apply spent 0.6–1.2 s compiling a statement that runs in about 1 ms.
    ///
    /// Both settings are `SET LOCAL`: they end with the apply's transaction, and the apply's other statements
    /// settle on generic plans anyway.
    /// The app's aggregate lock, shared by every apply's refresh and exclusive for `catalog apply`'s recompute
    /// (transaction locks: held until COMMIT). Without it, an apply that refreshed its chains under the old
    /// catalog and committed while the recompute's statement ran (on a snapshot without that apply's new
    /// transactions) was overwritten by the recompute: its chains' facts, and the totals kept from them, stayed
    /// stale until the next recompute. With it, an apply either commits before the recompute reads, or refreshes
    /// after the recompute committed, against the new catalog. Applies wait at their refresh (after their writes,
    /// holding only their own chains' locks) for as long as a recompute runs: minutes on 1,000,000 chains.
    static let applyLockStatement = PostgresStatement(
        "SELECT pg_advisory_xact_lock_shared(hashtextextended('aggregates/' || $1::bigint::text, 0))")
    static let recomputeLockStatement = PostgresStatement(
        "SELECT pg_advisory_xact_lock(hashtextextended('aggregates/' || $1::bigint::text, 0))")

    static let plansForThisTransaction = PostgresStatement(
        "SELECT set_config('plan_cache_mode', 'force_generic_plan', true), set_config('jit', 'off', true)")

    /// Recomputes every aggregate's rows of all of `appID`'s chains: called in the transaction of a change to
    /// what the aggregates derive from besides the transactions (the catalog's price points and product types).
    static func refreshApp(_ appID: Int64, on connection: PostgresConnection) throws {
        try connection.query(recomputeLockStatement, [appID])
        try connection.query(ChainCohortFactsRows.refreshAppStatement, [appID])
        try connection.query(ChainMoneyFactsRows.refreshAppStatement, [appID])
    }
}
