/// Where the operational reports that schema step 20 maintains aggregates for (`active`, `active-over-time`,
/// `summary --at` in the past, `churn`) read from.
enum AggregateSource: Sendable, Hashable {
    /// The maintained aggregates `chain_report_spans` and `ledger_entry_day_counts` (schema step 20): what the
    /// reports read.
    case aggregate
    /// The ledger's chains, transactions, state changes and entries: the reference computation the aggregates are
    /// tested against.
    case ledger
}
