/// Money the store gave back on a sale without taking the sale back: a Stripe refund of part of the charge that paid
/// it. The purchase keeps what it granted (the customer keeps what the rest paid for); the revenue reports count the
/// amount as a refund on the day it was made. A refund of the whole price is a revocation instead (`revocationDate`).
public struct PartialRefund: Hashable, Sendable, Codable {
    /// When the refund was made.
    public var date: Instant
    /// What it gave back, in milli-units of the transaction's currency.
    public var amount: Int64

    public init(date: Instant, amount: Int64) {
        self.date = date
        self.amount = amount
    }
}
