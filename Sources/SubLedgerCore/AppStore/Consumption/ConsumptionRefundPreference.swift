/// The outcome an app prefers for a customer's refund request (catalog `refund_preference`).
public enum ConsumptionRefundPreference: String, Hashable, Sendable, Codable, CaseIterable {
    /// Apple should decline the refund: V2 `DECLINE`, V1 `2`.
    case decline
    /// Apple should grant the refund in full: V2 `GRANT_FULL`, V1 `1`.
    case grant
    /// Apple should refund a share: V2 `GRANT_PRORATED` (an auto-renewable by the time left, which Apple
    /// computes; another product by the consumption the app reported). The V1 endpoint cannot say it: a
    /// catalog that asks for it with `endpoint: v1` is refused.
    case grantProrated = "grant_prorated"
    /// No preference: left out of the V2 request, V1 `3`.
    case noPreference = "no_preference"
}
