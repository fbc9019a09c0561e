import PostgresLibPQ
import SubLedgerCore

/// The money aggregates (schema step 19): `chain_money_facts`, per transaction of a chain what the `revenue` and
/// `mrr` reports read (computed by the SQL function `chain_money_facts_of`), `chain_mrr_moves`, per chain and
/// month how its MRR moved, and `chain_mrr_steps`, per chain each instant its MRR changes (both computed from
/// those rows, by `chain_mrr_moves_from` and `chain_mrr_steps_from`). All three are rewritten together, and the
/// per-day totals `revenue_day_totals` (schema step 22) changed by the difference between the chains' old and new
/// `chain_money_facts` rows, in the same call.
enum ChainMoneyFactsRows {
    /// Recomputes the three tables' rows of `chains` from their transactions as they are now, appended to `batch`:
    /// called by `ReportProjector` with the chains locked. One statement per environment.
    static func refresh(_ chains: [ChainKey], appID: Int64, into batch: inout PostgresBatch) {
        let byEnvironment = Dictionary(grouping: chains, by: \.environment.rawValue)
        for (environment, keys) in byEnvironment.sorted(by: { $0.key < $1.key }) {
            batch.append(refresh(appID: appID, environment: environment, chains: keys.map(\.chainID)))
        }
    }

    /// The rows of `chains` of app `appID` in `environment`: rows that changed are written, rows no longer computed
    /// deleted, unchanged rows left alone (no dead tuples for a chain that only renewed). The SQL function (schema
    /// step 36) computes and writes one chain at a time, with the plans its connection keeps, and changes the day
    /// totals once, in key order, so that concurrent projections that share rows lock them in the same order.
    static func refresh(appID: Int64, environment: String, chains: [String]) -> PostgresQuery {
        "SELECT chain_money_facts_refresh(\(appID), \(environment), \(PostgresArrayText.strings(chains))::text::text[])"
    }
}
