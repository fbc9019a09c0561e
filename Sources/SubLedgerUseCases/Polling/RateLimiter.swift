/// A token bucket: at most `perSecond` acquisitions per second on average, bursts of up to `burst`.
actor RateLimiter {
    private let perSecond: Double
    private let burst: Double
    private var tokens: Double
    private var refilledAt: ContinuousClock.Instant

    init(perSecond: Double, burst: Double? = nil) {
        self.perSecond = perSecond
        self.burst = burst ?? max(1, perSecond)
        self.tokens = self.burst
        self.refilledAt = .now
    }

    /// Waits until a token is available and takes it.
    func acquire() async throws {
        while true {
            let now = ContinuousClock.now
            let elapsed = refilledAt.duration(to: now)
            tokens = min(
                burst,
                tokens + Double(elapsed.components.seconds) * perSecond
                    + Double(elapsed.components.attoseconds) / 1e18 * perSecond)
            refilledAt = now
            if tokens >= 1 {
                tokens -= 1
                return
            }
            let wait = (1 - tokens) / perSecond
            try await Task.sleep(for: .milliseconds(Int64((wait * 1000).rounded(.up))))
        }
    }
}
