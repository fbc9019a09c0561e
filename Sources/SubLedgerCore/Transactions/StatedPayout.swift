/// A sale as the store states it in the seller's payout currency, where the store pays out in one currency whatever
/// the customer paid in (Paddle's `details.payout_totals`): the store's own conversion, which the revenue report's
/// payouts follow instead of the exchange rates loaded into SubLedger.
public struct StatedPayout: Hashable, Sendable, Codable {
    /// The payout currency (ISO 4217, uppercase).
    public var currency: String
    /// What the customer paid, converted (tax included); milli-units of `currency`, as are the others.
    public var total: Int64
    /// The tax in it.
    public var tax: Int64
    /// The store's fee.
    public var fee: Int64
    /// What the seller is paid: total − tax − fee.
    public var earnings: Int64
    /// The earnings taken back by the refunds that revoked the sale (`Transaction.revocationDate`); `nil` while it
    /// is not revoked, or where the store has not stated them yet.
    public var refundedEarnings: Int64?

    public init(
        currency: String, total: Int64, tax: Int64, fee: Int64, earnings: Int64, refundedEarnings: Int64? = nil
    ) {
        self.currency = currency
        self.total = total
        self.tax = tax
        self.fee = fee
        self.earnings = earnings
        self.refundedEarnings = refundedEarnings
    }
}
