/// Refund a transaction.
public struct RefundRequest: Sendable, Codable, Hashable {
    /// Apple's `cancellation_reason`: 0 other, 1 an issue in the app. Default: 0.
    public var reason: Int?
    /// The refund date, milliseconds since 1970. Default: now.
    public var date: Int64?

    /// Creates a request.
    public init(reason: Int? = nil, date: Int64? = nil) {
        self.reason = reason
        self.date = date
    }
}
