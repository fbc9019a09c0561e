/// Money the store gave back on a sale without taking the sale back: a Stripe refund of part of the charge that paid
/// it, a Paddle refund or chargeback of part of a transaction. The purchase keeps what it granted (the customer keeps
/// what the rest paid for); the revenue reports count the amount as a refund on the day it was made. A refund of the
/// whole price is a revocation instead (`revocationDate`).
public struct PartialRefund: Hashable, Sendable, Codable {
    /// When the refund was made.
    public var date: Instant
    /// What it gave back, in milli-units of the transaction's currency.
    public var amount: Int64
    /// The part of the sale's processing fee (`Transaction.processingFee`) this refund gave back to the seller, in
    /// milli-units of the transaction's currency, where the store states one: Paddle's (its adjustment's fee less
    /// what Paddle retained). `nil` where the store keeps its whole fee (Stripe).
    public var fee: Int64?
    /// The seller's earnings this refund took back in the payout currency (`Transaction.payout`), in milli-units of
    /// it, where the store states them (Paddle's adjustment `payout_totals.earnings`).
    public var payoutEarnings: Int64?

    public init(date: Instant, amount: Int64, fee: Int64? = nil, payoutEarnings: Int64? = nil) {
        self.date = date
        self.amount = amount
        self.fee = fee
        self.payoutEarnings = payoutEarnings
    }
}
