/// MRR at a series of instants (month ends) and how it moved between them, per currency, from every
/// subscriber's transactions: the pure computation behind `subledger report mrr`.
public enum MRRSeries {
    /// One currency's figures at one instant.
    public struct Point: Hashable, Sendable, Codable {
        public var currency: String
        /// Monthly recurring revenue, milli-units.
        public var mrr: Int64 = 0
        /// Subscribers contributing more than 0.
        public var subscribers = 0
        /// How MRR moved since the previous instant.
        public var movement = MRRMovement()
        /// Some of `mrr` comes from catalog prices (estimated).
        public var estimated = false
        /// The part of `mrr` whose transaction in force is of a commitment plan (`RevenueTransaction.isCommitted`):
        /// MRR the customers are bound to until their commitment ends.
        public var committedMRR: Int64 = 0
        /// The subscribers counted in `committedMRR`.
        public var committedSubscribers = 0

        public init(currency: String) { self.currency = currency }
    }

    /// For each instant of `instants` (ascending) after the first, each currency's point: MRR at that instant and the
    /// movement since the instant before (the first instant is the baseline). Every chain is one subscriber;
    /// a chain that changed currency churns in the old one and starts (or reactivates) in the new one.
    public static func compute(chains: [[RevenueTransaction]], at instants: [Instant]) -> [[String: Point]] {
        guard instants.count > 1 else { return [] }
        var result = Array(repeating: [String: Point](), count: instants.count - 1)
        for unsorted in chains {
            let chain = unsorted.sorted { ($0.purchaseDate, $0.transactionID) < ($1.purchaseDate, $1.transactionID) }
            let firstPaid = chain.first(where: \.isPaid)?.purchaseDate
            let values = MonthlyRecurring.inForce(sorted: chain, at: instants).map(value)
            var previous = values[0]
            for index in 1..<instants.count {
                let current = values[index]
                let paidBefore = firstPaid.map { $0 < instants[index - 1] } ?? false
                if let current, current.amount > 0 {
                    var point = result[index - 1][current.currency] ?? Point(currency: current.currency)
                    point.mrr += current.amount
                    point.subscribers += 1
                    point.estimated = point.estimated || current.estimated
                    if current.committed {
                        point.committedMRR += current.amount
                        point.committedSubscribers += 1
                    }
                    result[index - 1][current.currency] = point
                }
                let before = previous.flatMap { $0.amount > 0 ? $0 : nil }
                let now = current.flatMap { $0.amount > 0 ? $0 : nil }
                if let before, let now, before.currency == now.currency {
                    result[index - 1][now.currency, default: Point(currency: now.currency)].movement.record(
                        previous: before.amount, current: now.amount, paidBefore: paidBefore)
                } else {
                    if let before {
                        result[index - 1][before.currency, default: Point(currency: before.currency)].movement.record(
                            previous: before.amount, current: 0, paidBefore: paidBefore)
                    }
                    if let now {
                        result[index - 1][now.currency, default: Point(currency: now.currency)].movement.record(
                            previous: 0, current: now.amount, paidBefore: paidBefore || before != nil)
                    }
                }
                previous = current
            }
        }
        return result
    }

    private static func value(
        _ transaction: RevenueTransaction?
    ) -> (amount: Int64, currency: String, estimated: Bool, committed: Bool)? {
        guard let transaction, let amount = MonthlyRecurring.monthlyAmount(of: transaction),
            let currency = transaction.currency
        else { return nil }
        return (amount, currency, transaction.isEstimated, transaction.isCommitted)
    }
}
