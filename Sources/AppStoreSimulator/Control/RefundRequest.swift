/// Refund a transaction.
public struct RefundRequest: Sendable, Codable, Hashable {
    /// Apple's `cancellation_reason`: 0 other, 1 an issue in the app. Default: 0.
    public var reason: Int?
    /// The refund date, milliseconds since 1970. Default: now.
    public var date: Int64?
    /// The share refunded, Apple's `revocationPercentage` in thousandths of a percent (`0...100_000`; 25000 is
    /// 25 %). Below 100 000 the refund is prorated (`revocationType` `REFUND_PRORATED`). Default: the whole
    /// price (100 000, `REFUND_FULL`).
    public var percentage: Int?

    /// Creates a request.
    public init(reason: Int? = nil, date: Int64? = nil, percentage: Int? = nil) {
        self.reason = reason
        self.date = date
        self.percentage = percentage
    }
}
