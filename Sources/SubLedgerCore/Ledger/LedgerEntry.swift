/// One append-only effect on an account, unique by `idempotencyKey` (see `IdempotencyKey` for formats).
///
/// The storage layer inserts entries with `ON CONFLICT (idempotency_key) DO NOTHING`; the same key always
/// describes the same effect, so replays and reorderings of inputs add nothing.
public struct LedgerEntry: Hashable, Sendable, Codable {
    /// What the effect does.
    public enum Kind: String, Hashable, Sendable, Codable, CaseIterable {
        /// A purchase grants its product (first transaction of a chain, or any one-time product).
        case grant
        /// A later transaction of a subscription chain (renewal, upgrade, resubscription) extends it.
        case extend
        /// A refund, Family Sharing revocation or upgrade ends what a transaction granted.
        case revoke
        /// A reversed refund gives back what a revocation took.
        case restore
        /// The chain left this account under the ownership rule.
        case transferOut
        /// The chain came to this account under the ownership rule.
        case transferIn
        /// Consumable credits added (a purchase, or a reversed refund).
        case credit
        /// Consumable credits taken back (a refund).
        case debit
    }

    /// Why the effect happened.
    public enum Reason: String, Hashable, Sendable, Codable, CaseIterable {
        case purchase
        case renewal
        case refund
        case familySharingRevoked = "family_sharing_revoked"
        /// The customer moved to another product of the group; the old one ends at the upgrade moment.
        case upgrade
        /// Apple reversed a refund or revocation (`REFUND_REVERSED`, or sharing resumed).
        case revocationReversed = "revocation_reversed"
        case ownerNotActivelyAutoRenewing = "owner_not_actively_auto_renewing"
        case latestSubmitterTakes = "latest_submitter_takes"
        /// An account merge moved the chain, or its credits, to the account merged into.
        case accountMerge = "account_merge"
    }

    public var idempotencyKey: String
    public var kind: Kind
    public var account: AccountID
    public var bundleID: String
    public var environment: StoreEnvironment
    public var chainID: String
    /// The transaction that caused the effect (for transfers: the arrival that moved the chain).
    public var transactionID: String
    public var productID: String
    public var entitlementIDs: [String]
    /// Credits added (`credit`) or taken back (`debit`), always positive; `nil` for other kinds.
    public var credits: Int64?
    /// When the effect applies: purchase date, revocation date, or (transfers) the evaluation time.
    public var effectiveAt: Instant
    /// End of the granted period (`grant`, `extend`, `restore`, `transferIn`), when the product expires.
    public var periodEnd: Instant?
    public var reason: Reason

    public init(
        idempotencyKey: String,
        kind: Kind,
        account: AccountID,
        bundleID: String,
        environment: StoreEnvironment,
        chainID: String,
        transactionID: String,
        productID: String,
        entitlementIDs: [String],
        credits: Int64? = nil,
        effectiveAt: Instant,
        periodEnd: Instant? = nil,
        reason: Reason
    ) {
        self.idempotencyKey = idempotencyKey
        self.kind = kind
        self.account = account
        self.bundleID = bundleID
        self.environment = environment
        self.chainID = chainID
        self.transactionID = transactionID
        self.productID = productID
        self.entitlementIDs = entitlementIDs
        self.credits = credits
        self.effectiveAt = effectiveAt
        self.periodEnd = periodEnd
        self.reason = reason
    }
}
