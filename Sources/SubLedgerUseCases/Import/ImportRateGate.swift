import Synchronization

/// The importer's shared pause: when a store answers 429 to one worker (Apple's Retry-After), every worker waits
/// until then, since a store's limits count per app, not per connection; and the pacing of calls to at most so many
/// per second.
public final class ImportRateGate: Sendable {
    private let resumeAt = Mutex<ContinuousClock.Instant?>(nil)
    private let pacing: RateLimiter?

    /// `requestsPerSecond`: pace calls to at most this many per second (`nil`: only back off on 429).
    public init(requestsPerSecond: Double?) {
        pacing = requestsPerSecond.map { RateLimiter(perSecond: $0) }
    }

    /// Waits while paused, then for a pacing token.
    public func admit() async throws {
        while let until = resumeAt.withLock({ $0 }), until > .now {
            try await Task.sleep(until: until, clock: .continuous)
        }
        try await pacing?.acquire()
    }

    /// Pauses every worker for `delay` (extends a shorter pause, never shortens a longer one).
    public func pause(for delay: Duration) {
        let until = ContinuousClock.now.advanced(by: delay)
        resumeAt.withLock { current in
            if current.map({ $0 < until }) ?? true { current = until }
        }
    }
}
