import SubLedgerCore

/// When a store obligation that could not be sent is tried again, for every store: after `base`, doubling per
/// attempt that reached the store, at most `maximum` (well within Google's three days to acknowledge), and never
/// before the moment the store asked for (`Retry-After`).
///
/// Apple's consumption answers retry under it too: their 12-hour deadline is not a reason for a policy of their own,
/// as a delay of at most 30 minutes leaves more than 20 tries in the window; the answer's adapter gives up (a final
/// failure) when the next try would come after the deadline.
public struct ObligationRetryPolicy: Sendable, Hashable {
    /// The first retry's delay. Default 30 s.
    public var base: Duration = .seconds(30)
    /// The longest delay between retries. Default 30 minutes.
    public var maximum: Duration = .seconds(1_800)

    public init() {}

    /// The next attempt of an obligation tried `attempts` times before, failing now at `now`.
    public func nextAttempt(afterAttempts attempts: Int, now: Instant, notBefore: Instant? = nil) -> Instant {
        let delay = min(
            maximum.milliseconds,
            base.milliseconds.saturatingMultiplied(by: Int64(1) << Int64(min(max(attempts, 0), 20))))
        let next = now.adding(milliseconds: delay)
        if let notBefore, notBefore > next { return notBefore }
        return next
    }
}

extension Duration {
    fileprivate var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds.saturatingMultiplied(by: 1000).saturatingAdding(attoseconds / 1_000_000_000_000_000)
    }
}
