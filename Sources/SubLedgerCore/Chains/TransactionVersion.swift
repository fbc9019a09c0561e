/// How two versions of one transaction (same environment and transaction id) are compared and merged.
///
/// The merge is a maximum over a total order, so it is commutative, associative and idempotent: the stored
/// result does not depend on the order inputs arrive in or on how often they repeat.
enum TransactionVersion {
    /// True when `lhs` is less recent or, at equal observation time, less informative than `rhs`.
    static func precedes(_ lhs: (Transaction, Instant?), _ rhs: (Transaction, Instant?)) -> Bool {
        let left = rank(lhs.0, observedAt: lhs.1)
        let right = rank(rhs.0, observedAt: rhs.1)
        if left != right { return left.lexicographicallyPrecedes(right) }
        // Same rank, different content: any fixed order will do, as long as it never depends on arrival.
        return String(describing: lhs.0) < String(describing: rhs.0)
    }

    /// The more recent (or more informative) of two versions.
    static func newer(_ lhs: (Transaction, Instant?), _ rhs: (Transaction, Instant?)) -> (Transaction, Instant?) {
        precedes(lhs, rhs) ? rhs : lhs
    }

    /// Observation time first, then the fields that only ever get added as the store tells more: a revocation, an
    /// upgrade, a later expiry or signature, refunds of part of the sale (Stripe's, which accumulate on a charge,
    /// so two reads at the same instant keep the one that saw more of them), and the payout the store states once
    /// it has paid.
    private static func rank(_ transaction: Transaction, observedAt: Instant?) -> [Int64] {
        let partialRefunds = transaction.partialRefunds ?? []
        return [
            observedAt?.millisecondsSince1970 ?? Int64.min,
            transaction.revocationDate == nil ? 0 : 1,
            transaction.isUpgraded ? 1 : 0,
            transaction.expiresDate?.millisecondsSince1970 ?? Int64.min,
            transaction.signedDate?.millisecondsSince1970 ?? Int64.min,
            Int64(partialRefunds.count),
            partialRefunds.reduce(0) { $0.addingReportingOverflow($1.amount).partialValue },
            transaction.payout == nil ? 0 : 1,
        ]
    }
}

extension KnownTransaction {
    /// A transaction first seen as `version`, observed at `observedAt`.
    init(first version: Transaction, observedAt: Instant?) {
        self.init(
            transaction: version, observedAt: observedAt, account: nil,
            signedDetails: SignedTransactionDetails(of: version, observedAt: observedAt))
        recordRevocationFacts(of: version, observedAt: observedAt)
    }

    /// Merges another observed version; returns whether it told anything new: a different current version,
    /// a new revocation, or a revocation reversed (observation-time bookkeeping alone does not count).
    @discardableResult
    mutating func merge(_ version: Transaction, observedAt: Instant?) -> Bool {
        let before = (
            transaction, revocations.map(\.revocationDate), activeRevocation?.revocationDate,
            activeRevocation?.revocationPercentage, signedDetails
        )
        // A row stored before the details were kept apart: its newest version's own details are a statement.
        signedDetails = SignedTransactionDetails.later(
            signedDetails ?? SignedTransactionDetails(of: transaction, observedAt: self.observedAt),
            SignedTransactionDetails(of: version, observedAt: observedAt))
        let newest = TransactionVersion.newer((transaction, self.observedAt), (version, observedAt))
        transaction = newest.0
        self.observedAt = newest.1
        recordRevocationFacts(of: version, observedAt: observedAt)
        return before
            != (
                transaction, revocations.map(\.revocationDate), activeRevocation?.revocationDate,
                activeRevocation?.revocationPercentage, signedDetails
            )
    }
}
