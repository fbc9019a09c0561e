import PostgresLibPQ
import SubLedgerCore

/// The aggregates of the operational reports (schema step 20): `chain_report_spans`, per chain the spans of time
/// `active`, `active-over-time` and `summary --at` (in the past) count at an instant, computed by the SQL function
/// `chain_report_spans_of` from the chain's row, transactions and state changes; and `ledger_entry_day_counts`, the
/// ledger entries `churn` counts per UTC day, with `chain_entries_counted`, per chain the last entry counted.
enum OperationalReportRows {
    /// Recomputes the spans of `chains` as they are now and counts their entries not counted yet, appended to
    /// `batch`: called by `ReportProjector` with the chains locked. One statement per environment.
    static func refresh(_ chains: [ChainKey], appID: Int64, into batch: inout PostgresBatch) {
        let byEnvironment = Dictionary(grouping: chains, by: \.environment.rawValue)
        for (environment, keys) in byEnvironment.sorted(by: { $0.key < $1.key }) {
            batch.append(refresh(appID: appID, environment: environment, chains: keys.map(\.chainID)))
        }
    }

    /// For `chains` of app `appID` in `environment`: each chain's spans are computed afresh and compared with the
    /// stored ones; a chain whose spans did not change is not written, otherwise only the spans that differ are
    /// deleted, inserted or updated. Entries after the chain's `counted_through` are added to the day counts (in key
    /// order, so concurrent projections lock shared rows in one order) and the mark moved. The PL/pgSQL function
    /// (schema step 23; step 36 reads each chain's entries apart, so that Citus routes every read to one worker)
    /// keeps its statements' plans for the connection's life; step 20's set-based statement, which did the same in
    /// one statement, upserted (and so locked and rewrote) every span of the chain on every apply.
    static func refresh(appID: Int64, environment: String, chains: [String]) -> PostgresQuery {
        "SELECT chain_report_spans_refresh(\(appID), \(environment), \(PostgresArrayText.strings(chains))::text::text[])"
    }
}
