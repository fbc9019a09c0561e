/// The outcome an app prefers for a customer's refund request (catalog `refund_preference`).
public enum ConsumptionRefundPreference: String, Hashable, Sendable, Codable, CaseIterable {
    /// Apple should decline the refund: V2 `DECLINE`, V1 `2`.
    case decline
    /// Apple should grant the refund in full: V2 `GRANT_FULL`, V1 `1`.
    case grant
    /// No preference: left out of the V2 request, V1 `3`.
    case noPreference = "no_preference"
}
