import PostgresLibPQ
import SubLedgerCore

/// The `chain_cohort_facts` table (schema step 17): per chain, what the cohort reports (`trials`, `retention`)
/// read, computed from the chain's transactions by the SQL function `chain_cohort_facts_of`; and the per-cohort
/// totals summed from it that `retention` reads for whole months (`cohort_chain_totals`, `cohort_money_totals`,
/// schema step 21), kept by the same refreshes.
enum ChainCohortFactsRows {
    /// Recomputes the rows of `chains` from their transactions as they are now, appended to `batch`: called by
    /// `ReportProjector` with the chains locked. One statement per environment.
    static func refresh(_ chains: [ChainKey], appID: Int64, into batch: inout PostgresBatch) {
        let byEnvironment = Dictionary(grouping: chains, by: \.environment.rawValue)
        for (environment, keys) in byEnvironment.sorted(by: { $0.key < $1.key }) {
            batch.append(refresh(appID: appID, environment: environment, chains: keys.map(\.chainID)))
        }
    }

    /// The rows of `chains` of app `appID` in `environment`: written where the chain has a payment or an offer,
    /// deleted where it has neither, untouched where they did not change; the difference between the old and new
    /// rows added to the per-cohort totals (schema step 21, same call). The SQL function (schema step 18, replaced
    /// by step 21) runs `chain_cohort_facts_of` per chain with the plans its connection keeps: inlined into this
    /// statement, that query was planned afresh on every refresh, at several times the cost of running it.
    static func refresh(appID: Int64, environment: String, chains: [String]) -> PostgresQuery {
        "SELECT chain_cohort_facts_refresh(\(appID), \(environment), \(PostgresArrayText.strings(chains))::text::text[])"
    }
}
