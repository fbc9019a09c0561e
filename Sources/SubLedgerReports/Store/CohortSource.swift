/// Where the cohort reports (`trials`, `retention`) take their per-chain facts from.
enum CohortSource: Sendable, Hashable {
    /// The maintained aggregate `chain_cohort_facts` (schema step 17): what the reports read.
    case facts
    /// The ledger's transactions: the reference computation the aggregate is tested against.
    case ledger
}
