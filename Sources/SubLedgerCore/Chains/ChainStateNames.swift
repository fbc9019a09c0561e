extension ChainState {
    /// The state's stable snake_case name, as stored and reported: `active`, `grace_period`,
    /// `billing_retry`, `expired`, `revoked`, `upgraded_away`.
    public var name: String {
        switch self {
        case .active: "active"
        case .gracePeriod: "grace_period"
        case .billingRetry: "billing_retry"
        case .expired: "expired"
        case .revoked: "revoked"
        case .upgradedAway: "upgraded_away"
        }
    }

    /// Why the chain expired, when it did.
    public var expirationReason: ExpirationReason? {
        if case .expired(let reason) = self { return reason }
        return nil
    }
}

extension ExpirationReason {
    /// The reason's stable snake_case name, as stored and reported (`unknown` keeps no raw value here).
    public var name: String {
        switch self {
        case .voluntary: "voluntary"
        case .billingError: "billing_error"
        case .priceIncreaseDeclined: "price_increase_declined"
        case .productUnavailable: "product_unavailable"
        case .other: "other"
        case .periodEnded: "period_ended"
        case .unknown: "unknown"
        }
    }
}
