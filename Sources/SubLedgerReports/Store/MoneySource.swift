/// Where the money reports (`mrr`, `revenue`) take their transactions' figures from.
enum MoneySource: Sendable, Hashable {
    /// The maintained aggregates `chain_money_facts` and `chain_mrr_moves` (schema step 19): what the reports read.
    case facts
    /// The ledger's transactions (`transaction_amounts`), with the rules applied in Swift: the reference
    /// computation the aggregates are tested against.
    case ledger
}
