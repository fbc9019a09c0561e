/// Apple's count of a subscriber's days of paid service in one subscription group, which decides when the
/// commission drops from 30 % to 15 % (docs/explanation/revenue.md, "Commission").
///
/// The rule, as Apple states it and as this implements it, over one chain's transactions (a chain is one
/// subscriber in one group: upgrades, downgrades and crossgrades keep the original transaction id):
/// - a paid transaction adds its served period (purchase to expiry, or to the upgrade moment);
/// - free trials, free offers and unpriced periods add nothing, but do not break the count;
/// - a refunded transaction adds nothing (a full refund takes the period back);
/// - when the next paid period starts more than 60 days after the last paid day, the count restarts at 0;
///   within 60 days it resumes where it stopped. Days are counted in milliseconds, never calendar days.
public enum PaidServiceDays {
    /// A year of paid service: 365 days.
    public static let oneYearMilliseconds: Int64 = 365 * 86_400_000
    /// The lapse after which the count restarts: 60 days.
    public static let lapseMilliseconds: Int64 = 60 * 86_400_000

    /// For each of `transactions` (one chain), the paid service accrued before it, in milliseconds;
    /// transactions are taken in purchase order whatever order they are given in.
    public static func accruedBefore(_ transactions: [RevenueTransaction]) -> [String: Int64] {
        var accrued: Int64 = 0
        var lastPaidEnd: Instant?
        var result: [String: Int64] = [:]
        let ordered = transactions.sorted { ($0.purchaseDate, $0.transactionID) < ($1.purchaseDate, $1.transactionID) }
        for transaction in ordered {
            let counts = transaction.isPaid && transaction.refundDate == nil
            if counts, let lastPaidEnd,
                transaction.purchaseDate.millisecondsSince1970.saturatingAdding(-lastPaidEnd.millisecondsSince1970)
                    > lapseMilliseconds
            {
                accrued = 0
            }
            result[transaction.transactionID] = accrued
            guard counts, let end = transaction.servedUntil else { continue }
            accrued = accrued.saturatingAdding(
                max(0, end.millisecondsSince1970 - transaction.purchaseDate.millisecondsSince1970))
            lastPaidEnd = max(lastPaidEnd ?? end, end)
        }
        return result
    }
}
