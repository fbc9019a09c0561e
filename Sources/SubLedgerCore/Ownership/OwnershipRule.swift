/// The ownership rule: given a chain's owner and the account a new arrival is attributed to, who gets it.
public enum OwnershipRule {
    /// The rule's answer for one chain and one input.
    public enum Resolution: Hashable, Sendable {
        /// Nobody could be named and the chain has no owner: the transactions stay unclaimed.
        case unattributed
        /// Nobody was named (a notification or poll): the transactions go to the chain's owner.
        case toOwner(AccountID)
        /// The chain had no owner: the claimant becomes its owner.
        case firstClaim(AccountID)
        /// The claimant already owns the chain.
        case sameOwner(AccountID)
        /// The owner keeps the chain; the claimant gets nothing and is told only that.
        case ownerKeeps(AccountID)
        /// Ownership moves from the owner to the claimant; the owner's entitlement from it ends now.
        case transfer(from: AccountID, to: AccountID, reason: BindingChange.Reason)

        /// The account the chain's newly arrived transactions go to, if any.
        public var recipient: AccountID? {
            switch self {
            case .unattributed: nil
            case .toOwner(let account), .firstClaim(let account), .sameOwner(let account), .ownerKeeps(let account):
                account
            case .transfer(_, let to, _): to
            }
        }
    }

    /// Applies `policy` to a chain owned by `owner` when an input attributed to `claimant` arrives.
    ///
    /// A consumable's chain never moves: its credits were granted once and may have been spent.
    /// `ownerIsActivelyAutoRenewing` is only consulted for a conflict under `.activeAutoRenewerKeeps`.
    public static func resolve(
        owner: AccountID?,
        claimant: AccountID?,
        productType: ProductType,
        policy: OwnershipPolicy,
        ownerIsActivelyAutoRenewing: () -> Bool
    ) -> Resolution {
        guard let claimant else { return owner.map(Resolution.toOwner) ?? .unattributed }
        guard let owner else { return .firstClaim(claimant) }
        guard owner != claimant else { return .sameOwner(owner) }
        if productType == .consumable { return .ownerKeeps(owner) }
        switch policy {
        case .originalAccountKeeps:
            return .ownerKeeps(owner)
        case .latestSubmitterTakes:
            return .transfer(from: owner, to: claimant, reason: .latestSubmitterTakes)
        case .activeAutoRenewerKeeps:
            return ownerIsActivelyAutoRenewing()
                ? .ownerKeeps(owner) : .transfer(from: owner, to: claimant, reason: .ownerNotActivelyAutoRenewing)
        }
    }

    /// Whether a chain's owner is "still actively auto-renewing" it when an input arrives at `now`.
    ///
    /// Exactly, all of:
    /// 1. the chain is an auto-renewable subscription;
    /// 2. the latest renewal info stored *before* the input (greatest `observedAt`) says `willAutoRenew`, and
    ///    no renewal info carried by the input that is newer than it says otherwise;
    /// 3. the chain's `ChainState` at `now` is `active`, `gracePeriod` or `billingRetry` (so not `revoked`,
    ///    `upgradedAway` or `expired`), computed over the stored transactions credited to an account (in their
    ///    newest known versions, so a refund carried by the input counts) plus those of the other transactions
    ///    (the input's new ones, and any stored unclaimed) that *continue*
    ///    the owner's subscription: a new transaction continues it when the chain so far was `active`,
    ///    `gracePeriod` or `billingRetry` 1 ms before the transaction's purchase date. That admits the owner's
    ///    own renewal submitted by someone else, and excludes a new purchase made after the owner's
    ///    subscription had lapsed.
    ///
    /// Why the input's renewal info cannot *prove* auto-renewal: when another account buys on the same Apple
    /// ID, the receipt's renewal info shows that purchase renewing, not the owner's intent. It can disprove it:
    /// auto-renew off in a newer observation is a fact about the chain, whoever submits it.
    ///
    /// - Parameters:
    ///   - before: the chain as stored before the input.
    ///   - merged: the same chain with the input's transactions merged in.
    ///   - incomingRenewalInfo: the newest renewal info for this chain carried by the input, if any.
    public static func ownerIsActivelyAutoRenewing(
        before: ChainSnapshot,
        merged: ChainSnapshot,
        incomingRenewalInfo: RenewalInfo?,
        at now: Instant,
        in app: App
    ) -> Bool {
        guard before.header.productType == .autoRenewable,
            let stored = before.header.renewalInfo, stored.willAutoRenew
        else { return false }
        var evaluated = before
        if let incoming = incomingRenewalInfo, RenewalInfoVersion.isNewer(incoming, than: stored) {
            guard incoming.willAutoRenew else { return false }
            evaluated.header.renewalInfo = incoming
        }
        return heldByOwner(before: evaluated, merged: merged, in: app).state(at: now, in: app).isRenewing
    }

    /// The chain as its owner holds it: the transactions of `before` already credited to an account, in their
    /// versions of `merged`, plus every other transaction of `merged` (a new arrival, or one stored unclaimed)
    /// that *continues* the owner's subscription, that is, purchased while the chain so held was `active`,
    /// `gracePeriod` or `billingRetry`: 1 ms before its purchase date (a renewal at the period's end), or at it (a
    /// renewal made early, within the period). Renewal info is `before`'s.
    ///
    /// A purchase made after the owner's subscription lapsed is not in it: it is somebody's new subscription on
    /// the same store account, whoever that turns out to be.
    public static func heldByOwner(before: ChainSnapshot, merged: ChainSnapshot, in app: App) -> ChainSnapshot {
        let held = Set(before.transactions.filter { $0.account != nil }.map(\.transactionID))
        var evaluated = before
        evaluated.transactions = merged.transactions.filter { held.contains($0.transactionID) }
        for var candidate in merged.transactions where !held.contains(candidate.transactionID) {
            let purchased = candidate.transaction.purchaseDate
            if evaluated.state(at: purchased.adding(milliseconds: -1), in: app).isRenewing
                || evaluated.state(at: purchased, in: app).isRenewing
            {
                // Held by the owner in this view, so the chain's state counts it.
                candidate.account = candidate.account ?? before.header.owner
                evaluated.transactions.append(candidate)
                evaluated.sortTransactions()
            }
        }
        return evaluated
    }
}
