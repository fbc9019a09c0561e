/// Start a billing problem on a subscription.
public struct BillingFailureRequest: Sendable, Codable, Hashable {
    /// Fail now: end the current period at the current time instead of waiting for its expiry. Default: false.
    public var immediately: Bool?

    /// Creates a request.
    public init(immediately: Bool? = nil) { self.immediately = immediately }
}
