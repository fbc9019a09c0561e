/// Chain counts per state (the states `SubLedgerCore.ChainState.name` spells), with their total.
public struct StateCounts: Sendable, Hashable, Codable {
    public var active = 0
    public var gracePeriod = 0
    public var billingRetry = 0
    public var expired = 0
    public var revoked = 0
    public var upgradedAway = 0
    /// Chains in a state this version does not know (kept so totals still add up).
    public var other = 0
    public var total = 0

    public init() {}

    /// The state names, in display order; `other` last.
    public static let stateNames = ["active", "grace_period", "billing_retry", "expired", "revoked", "upgraded_away"]

    /// The count of a state by its stored name (`other` for any unknown name).
    public subscript(state: String) -> Int {
        switch state {
        case "active": active
        case "grace_period": gracePeriod
        case "billing_retry": billingRetry
        case "expired": expired
        case "revoked": revoked
        case "upgraded_away": upgradedAway
        default: other
        }
    }

    /// Adds `count` chains in `state` (a stored state name).
    public mutating func add(_ count: Int, in state: String) {
        switch state {
        case "active": active += count
        case "grace_period": gracePeriod += count
        case "billing_retry": billingRetry += count
        case "expired": expired += count
        case "revoked": revoked += count
        case "upgraded_away": upgradedAway += count
        default: other += count
        }
        total += count
    }

    /// Adds every count of `counts`.
    public mutating func add(_ counts: StateCounts) {
        for name in Self.stateNames { add(counts[name], in: name) }
        add(counts.other, in: "other")
    }

    /// Chains that grant access now: active or in a grace period.
    public var grantingAccess: Int { active + gracePeriod }
}
