/// One refund or Family Sharing revocation seen on a transaction, and the latest time it was seen.
///
/// Kept as a fact rather than a flag so that inputs arriving in any order agree: a revocation is reversed
/// (`REFUND_REVERSED`) exactly when the transaction was observed without a revocation date *after* the latest
/// observation showing this one (`KnownTransaction.lastUnrevokedObservationAt > lastObservedAt`).
public struct ObservedRevocation: Hashable, Sendable, Codable {
    /// Apple's `revocationDate` / `cancellation_date_ms`: when access ended.
    public var revocationDate: Instant
    /// Apple's raw `revocationReason` from the latest observation.
    public var revocationReason: Int?
    /// Whether the transaction was shared through Family Sharing (the sharer stopped sharing).
    public var isFamilySharing: Bool
    /// The latest observation time (signed date or receipt request time) at which this revocation was seen;
    /// `nil` when no observation carried a time (such a revocation can never be proven reversed).
    public var lastObservedAt: Instant?
    /// Apple's `revocationPercentage` (`RevocationPercentage`) from the latest observation that stated one;
    /// `nil` when none did (the whole price was refunded, as far as SubLedger knows).
    public var revocationPercentage: Int?
    /// When the observation that stated `revocationPercentage` was made (`nil`: not stated, or no time).
    public var revocationPercentageObservedAt: Instant?

    public init(
        revocationDate: Instant, revocationReason: Int?, isFamilySharing: Bool, lastObservedAt: Instant?,
        revocationPercentage: Int? = nil, revocationPercentageObservedAt: Instant? = nil
    ) {
        self.revocationDate = revocationDate
        self.revocationReason = revocationReason
        self.isFamilySharing = isFamilySharing
        self.lastObservedAt = lastObservedAt
        self.revocationPercentage = revocationPercentage
        self.revocationPercentageObservedAt = revocationPercentageObservedAt
    }
}
