/// A change of a chain's owner: the first claim, or a transfer under the app's `OwnershipPolicy`.
public struct BindingChange: Hashable, Sendable, Codable {
    /// Why the owner changed.
    public enum Reason: String, Hashable, Sendable, Codable {
        /// The chain had no owner; the first account it could be attributed to became the owner.
        case firstClaim = "first_claim"
        /// `.activeAutoRenewerKeeps`: the owner was not still actively auto-renewing, so the submitter took it.
        case ownerNotActivelyAutoRenewing = "owner_not_actively_auto_renewing"
        /// `.latestSubmitterTakes`: another account submitted the chain, so it moved.
        case latestSubmitterTakes = "latest_submitter_takes"
        /// An operator merged the owner's account into another (`AccountMerge`): every chain it owned moved.
        case accountMerge = "account_merge"
    }

    public var chain: ChainKey
    /// Position in the chain's history, from 0; part of transfer idempotency keys so a chain that moves
    /// back and forth between two accounts records every move.
    public var sequence: Int
    /// The previous owner; `nil` for the first claim.
    public var from: AccountID?
    public var to: AccountID
    public var reason: Reason
    /// When the change took effect: the evaluation time (`now`) of the input that caused it. The previous
    /// owner's entitlement from the chain ends at this instant (for a first claim: owner since the start).
    public var at: Instant
    /// The transaction whose arrival moved the chain; `nil` for a first claim (any of the chain's
    /// transactions could have been first to arrive, so naming one would depend on arrival order).
    public var transactionID: String?

    public init(
        chain: ChainKey,
        sequence: Int,
        from: AccountID?,
        to: AccountID,
        reason: Reason,
        at: Instant,
        transactionID: String?
    ) {
        self.chain = chain
        self.sequence = sequence
        self.from = from
        self.to = to
        self.reason = reason
        self.at = at
        self.transactionID = transactionID
    }
}
