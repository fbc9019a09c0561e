/// Where the cohort reports (`trials`, `retention`) take their per-chain facts from.
enum CohortSource: Sendable, Hashable {
    /// For `retention`, what the report reads: the per-cohort totals `cohort_chain_totals` and `cohort_money_totals`
    /// (schema step 21) for the cohorts whose whole UTC month lies in the range, and `chain_cohort_facts` for the
    /// months the range cuts. `trials` has no totals and reads `chain_cohort_facts`, as for `.facts`.
    case totals
    /// The maintained per-chain aggregate `chain_cohort_facts` (schema step 17): what `trials` reads, and what
    /// `retention`'s totals are summed from.
    case facts
    /// The ledger's transactions: the reference computation the aggregates are tested against.
    case ledger
}
