/// How two renewal states of one chain are ordered: the later observation wins, never the later arrival.
enum RenewalInfoVersion {
    /// Whether `candidate` should replace `stored`: observed later or, at the same instant (Apple signs to the
    /// millisecond, so a purchase and a change of auto-renew can share one), the state that does not renew, then
    /// a fixed content-based tie-break, so that arrival order never matters. Not renewing wins a tie because it
    /// is the state a customer reaches by acting (turning auto-renew off); counting them as renewing would keep
    /// a chain with an account that gave it up (docs/explanation/ownership.md, "Stale inputs").
    static func isNewer(_ candidate: RenewalInfo, than stored: RenewalInfo?) -> Bool {
        guard let stored else { return true }
        if candidate.observedAt != stored.observedAt { return candidate.observedAt > stored.observedAt }
        if candidate.willAutoRenew != stored.willAutoRenew { return !candidate.willAutoRenew }
        return String(describing: candidate) > String(describing: stored)
    }

    /// The newest of `infos`, if any.
    static func newest(_ infos: [RenewalInfo]) -> RenewalInfo? {
        infos.reduce(nil) { best, info in isNewer(info, than: best) ? info : best }
    }
}
