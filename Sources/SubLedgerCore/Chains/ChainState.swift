/// Where a chain stands at one instant, derived from its transactions and latest renewal info.
///
/// For an auto-renewable chain, with `latest` the chain's transaction with the greatest
/// (`purchaseDate`, `transactionID`) not after the instant `t`, and `renewal` the latest renewal info:
/// 1. `revoked` when `latest` has an unreversed refund or Family Sharing revocation dated at or before `t`;
/// 2. `upgradedAway` when `latest.isUpgraded` and the upgrade moment (its `revocationDate`) is at or before
///    `t`, or when no upgrade moment is known;
/// 3. `active` when `t < latest.expiresDate`;
/// 4. `gracePeriod` when `renewal.isInBillingRetryPeriod` and `t < renewal.gracePeriodExpiresDate`;
/// 5. `billingRetry` when `renewal.isInBillingRetryPeriod` (no grace period left);
/// 6. otherwise `expired(ExpirationReason(renewal.expirationIntent))`.
/// One-time products: a non-consumable or consumable is `active` unless revoked; a non-renewing purchase is
/// `active` for `durationDays` from its purchase date, then `expired(.periodEnded)`.
public enum ChainState: Hashable, Sendable, Codable {
    case active
    case gracePeriod
    case billingRetry
    case expired(ExpirationReason)
    case revoked
    case upgradedAway

    /// Whether the state grants entitlements: active or in a grace period (billing retry alone does not).
    public var grantsAccess: Bool {
        switch self {
        case .active, .gracePeriod: true
        case .billingRetry, .expired, .revoked, .upgradedAway: false
        }
    }

    /// Whether the store is still trying to keep the chain going: active, grace period or billing retry.
    public var isRenewing: Bool {
        switch self {
        case .active, .gracePeriod, .billingRetry: true
        case .expired, .revoked, .upgradedAway: false
        }
    }
}
