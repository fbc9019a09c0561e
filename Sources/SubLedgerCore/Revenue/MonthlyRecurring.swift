/// A subscription price normalized to one month, for MRR.
///
/// The period is read from the transaction itself (purchase to expiry) and snapped to Apple's durations:
/// 6 to 8 days is a week (× 52 / 12), anything else a whole number of months (30.436875 days each:
/// 1, 2, 3, 6 or 12 months for Apple's periods), at least one. Trials and free offers cost 0, so they add 0.
public enum MonthlyRecurring {
    /// Milliseconds of an average Gregorian month (365.2425 / 12 days).
    public static let monthMilliseconds: Int64 = 2_629_746_000

    /// `amount` per month for a period of `periodMilliseconds`, rounded half up to the milli-unit.
    public static func monthlyAmount(_ amount: Int64, periodMilliseconds: Int64) -> Int64 {
        let days = periodMilliseconds / 86_400_000
        if (6...8).contains(days) { return (amount.saturatingMultiplied(by: 52) + 6) / 12 }
        let months = max(1, (periodMilliseconds + monthMilliseconds / 2) / monthMilliseconds)
        return (amount + months / 2) / months
    }

    /// The transaction of a chain in force at `instant`: its latest purchased at or before `instant` whose
    /// served period runs past it and that is not refunded by then; `nil` when none is.
    public static func inForce(_ transactions: [RevenueTransaction], at instant: Instant) -> RevenueTransaction? {
        var best: RevenueTransaction?
        for transaction in transactions {
            guard transaction.purchaseDate <= instant, let end = transaction.servedUntil, end > instant else {
                continue
            }
            if let refund = transaction.refundDate, refund <= instant { continue }
            if let current = best,
                (current.purchaseDate, current.transactionID) > (transaction.purchaseDate, transaction.transactionID)
            {
                continue
            }
            best = transaction
        }
        return best
    }

    /// `inForce(chain, at:)` at each of `instants` (ascending), in one sweep over `chain` sorted in purchase
    /// order: the same answers, without rescanning the whole chain per instant.
    public static func inForce(sorted chain: [RevenueTransaction], at instants: [Instant]) -> [RevenueTransaction?] {
        var longest: Int64 = 0
        for transaction in chain {
            guard let end = transaction.servedUntil else { continue }
            longest = max(longest, end.millisecondsSince1970 - transaction.purchaseDate.millisecondsSince1970)
        }
        var upper = 0
        return instants.map { instant in
            while upper < chain.count, chain[upper].purchaseDate <= instant { upper += 1 }
            var index = upper - 1
            while index >= 0 {
                let transaction = chain[index]
                // Nothing purchased longer ago than the longest period can still be in force.
                if instant.millisecondsSince1970 - transaction.purchaseDate.millisecondsSince1970 >= longest { break }
                if let end = transaction.servedUntil, end > instant,
                    !(transaction.refundDate.map { $0 <= instant } ?? false)
                {
                    return transaction
                }
                index -= 1
            }
            return nil
        }
    }

    /// A subscription transaction's monthly amount (its price over its whole period, purchase to expiry);
    /// `nil` when it is unpriced or not a subscription.
    public static func monthlyAmount(of transaction: RevenueTransaction) -> Int64? {
        guard let amount = transaction.amountMilliunits, let expires = transaction.expiresDate else { return nil }
        return monthlyAmount(
            amount, periodMilliseconds: expires.millisecondsSince1970 - transaction.purchaseDate.millisecondsSince1970)
    }
}
