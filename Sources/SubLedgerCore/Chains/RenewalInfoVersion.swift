/// How two renewal states of one chain are ordered: the later observation wins, never the later arrival.
enum RenewalInfoVersion {
    /// Whether `candidate` should replace `stored`: observed later or, at the same instant, a fixed
    /// content-based tie-break so that arrival order never matters.
    static func isNewer(_ candidate: RenewalInfo, than stored: RenewalInfo?) -> Bool {
        guard let stored else { return true }
        if candidate.observedAt != stored.observedAt { return candidate.observedAt > stored.observedAt }
        return String(describing: candidate) > String(describing: stored)
    }

    /// The newest of `infos`, if any.
    static func newest(_ infos: [RenewalInfo]) -> RenewalInfo? {
        infos.reduce(nil) { best, info in isNewer(info, than: best) ? info : best }
    }
}
