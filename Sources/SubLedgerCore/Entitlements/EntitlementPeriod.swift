/// A stretch of time during which one chain gives one account the same answer to an entitlement read:
/// the read model's unit (`ChainSnapshot.entitlementPeriods(in:)` derives them, `Ledger.entitlements(from:at:app:)`
/// answers a read from them).
///
/// The period runs from `from` (inclusive) to `until` (exclusive; `nil`: for ever). Either the chain grants
/// access during it (`grant`), or its answer depends on the catalog in a way the period cannot capture
/// (`needsChains`: a non-renewing purchase, whose end is the catalog's duration), so a read that meets it
/// goes to the chains.
public struct EntitlementPeriod: Hashable, Sendable {
    public var account: AccountID
    public var chain: ChainKey
    public var from: Instant
    public var until: Instant?
    /// What the chain grants during the period; `nil` exactly when `needsChains`.
    public var grant: Grant?

    /// Whether a read at an instant in this period must derive the answer from the chains.
    public var needsChains: Bool { grant == nil }

    public init(account: AccountID, chain: ChainKey, from: Instant, until: Instant?, grant: Grant?) {
        self.account = account
        self.chain = chain
        self.from = from
        self.until = until
        self.grant = grant
    }

    /// Whether `instant` lies in the period.
    public func contains(_ instant: Instant) -> Bool {
        from <= instant && until.map { instant < $0 } ?? true
    }

    /// What a chain grants while it grants access: the facts of its latest transaction, before the catalog
    /// maps the product to entitlement ids.
    public struct Grant: Hashable, Sendable {
        public var transactionID: String
        public var productID: String
        /// `active` or `gracePeriod`.
        public var state: ChainState
        public var expiresAt: Instant?
        public var gracePeriodExpiresAt: Instant?
        public var willAutoRenew: Bool?
        public var ownershipType: OwnershipType

        public init(
            transactionID: String, productID: String, state: ChainState, expiresAt: Instant?,
            gracePeriodExpiresAt: Instant?, willAutoRenew: Bool?, ownershipType: OwnershipType
        ) {
            self.transactionID = transactionID
            self.productID = productID
            self.state = state
            self.expiresAt = expiresAt
            self.gracePeriodExpiresAt = gracePeriodExpiresAt
            self.willAutoRenew = willAutoRenew
            self.ownershipType = ownershipType
        }
    }
}
