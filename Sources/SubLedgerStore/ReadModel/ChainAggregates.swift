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
        // Cohort facts (schema step 17): what `trials` and `retention` read.
        try ChainCohortFactsRows.refresh(chains, appID: appID, on: connection)
        // Money facts and MRR moves (schema step 19): what `revenue` and `mrr` read.
        try ChainMoneyFactsRows.refresh(chains, appID: appID, on: connection)
        // Operational report spans and day counts (schema step 20; no catalog input): `active`, `summary --at`, `churn`.
        try OperationalReportRows.refresh(chains, appID: appID, on: connection)
    }

    /// Recomputes every aggregate's rows of all of `appID`'s chains: called in the transaction of a change to
    /// what the aggregates derive from besides the transactions (the catalog's price points and product types).
    static func refreshApp(_ appID: Int64, on connection: PostgresConnection) throws {
        try connection.query(ChainCohortFactsRows.refreshAppStatement, [appID])
        try connection.query(ChainMoneyFactsRows.refreshAppStatement, [appID])
    }
}
