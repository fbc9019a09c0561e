/// A transaction's revocation facts: how they are recorded from each observed version, and what is in force.
///
/// The facts (`KnownTransaction.revocations`, `lastUnrevokedObservationAt`) only move forward: a revocation
/// date once seen stays, a later observation replaces an earlier one's details, never the reverse. So
/// recording is commutative, associative and idempotent like the rest of `KnownTransaction.merge`, and what
/// is in force is read from the facts, never stored as a flag. See `Revocation` for the whole picture.
extension KnownTransaction {
    /// Whether `revocation` was reversed by a later observation without a revocation date.
    public func isReversed(_ revocation: ObservedRevocation) -> Bool {
        guard let clean = lastUnrevokedObservationAt, let seen = revocation.lastObservedAt else { return false }
        return clean > seen
    }

    /// The latest revocation still in force (not reversed), if any.
    public var activeRevocation: ObservedRevocation? {
        revocations.last { !isReversed($0) }
    }

    /// The revocation in force at `instant`: not reversed and dated at or before `instant`.
    public func revocation(inForceAt instant: Instant) -> ObservedRevocation? {
        guard let revocation = activeRevocation, revocation.revocationDate <= instant else { return nil }
        return revocation
    }

    /// Adds what `version`, observed at `observedAt`, says about revocation to the facts: a revocation seen
    /// (or seen again, later), or a clean observation that may reverse earlier ones.
    mutating func recordRevocationFacts(of version: Transaction, observedAt: Instant?) {
        guard let date = Revocation.date(of: version) else {
            if version.source.statesRevocation, let observedAt,
                lastUnrevokedObservationAt.map({ observedAt > $0 }) ?? true
            {
                lastUnrevokedObservationAt = observedAt
            }
            return
        }
        let percentage = RevocationPercentage.checked(version.revocationPercentage)
        let seen = ObservedRevocation(
            revocationDate: date,
            revocationReason: version.revocationReason,
            isFamilySharing: version.ownershipType == .familyShared,
            lastObservedAt: observedAt,
            revocationPercentage: percentage,
            revocationPercentageObservedAt: percentage == nil ? nil : observedAt
        )
        if let index = revocations.firstIndex(where: { $0.revocationDate == date }) {
            let stored = revocations[index]
            // Keep the latest observation's details; on a tie keep a deterministic choice. The percentage is
            // the latest stated one: an observation that states none (a receipt) never erases it.
            let percentage = Self.statedPercentage(stored, seen)
            var kept = stored
            if Self.isLater(seen.lastObservedAt, than: stored.lastObservedAt)
                || (seen.lastObservedAt == stored.lastObservedAt
                    && String(describing: seen) > String(describing: stored))
            {
                kept = seen
            }
            kept.revocationPercentage = percentage.revocationPercentage
            kept.revocationPercentageObservedAt = percentage.revocationPercentageObservedAt
            revocations[index] = kept
        } else {
            revocations.append(seen)
            revocations.sort { $0.revocationDate < $1.revocationDate }
        }
    }

    /// Of two observations of one revocation, the one whose stated percentage wins: stated over not stated,
    /// then the later statement, then the larger value (a maximum over a total order, so the merge stays
    /// commutative and associative).
    private static func statedPercentage(_ lhs: ObservedRevocation, _ rhs: ObservedRevocation) -> ObservedRevocation {
        guard let right = rhs.revocationPercentage else { return lhs }
        guard let left = lhs.revocationPercentage else { return rhs }
        if isLater(rhs.revocationPercentageObservedAt, than: lhs.revocationPercentageObservedAt) { return rhs }
        if isLater(lhs.revocationPercentageObservedAt, than: rhs.revocationPercentageObservedAt) { return lhs }
        return right > left ? rhs : lhs
    }

    private static func isLater(_ lhs: Instant?, than rhs: Instant?) -> Bool {
        switch (lhs, rhs) {
        case (let lhs?, let rhs?): lhs > rhs
        case (.some, nil): true
        case (nil, _): false
        }
    }
}
