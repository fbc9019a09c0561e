/// Where the money reports (`mrr`, `revenue`) take their transactions' figures from.
enum MoneySource: Sendable, Hashable {
    /// What the reports read: for `revenue`, the whole UTC days of its range from the per-day totals
    /// `revenue_day_totals` (schema step 22) and the partial days at its edges from `chain_money_facts`; for `mrr`,
    /// the same as `facts`.
    case dayTotals
    /// The maintained aggregates `chain_money_facts` and `chain_mrr_moves` (schema step 19) alone.
    case facts
    /// The ledger's transactions (`transaction_amounts`), with the rules applied in Swift: the reference
    /// computation the aggregates are tested against.
    case ledger
}
