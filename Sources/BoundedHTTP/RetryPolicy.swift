/// How a failed call is tried again: bounded exponential backoff with jitter.
///
/// Attempt `n` (from 0) that fails retryably waits `min(maximumDelay, initialDelay × 2ⁿ)` scaled by a factor drawn
/// from `[1 − jitter, 1]`, so that many callers failing together do not retry together; a `Retry-After` from
/// the server lengthens the wait, up to `maximumDelay`. The store clients (Google Play's, Stripe's) retry with it.
public struct RetryPolicy: Sendable, Hashable {
    /// Attempts in all, the first included (1 never retries). Default: 4.
    public var maximumAttempts: Int
    /// The wait after the first failure, before jitter. Default: 500 ms.
    public var initialDelay: Duration
    /// The longest wait. Default: 8 s.
    public var maximumDelay: Duration
    /// The share of a wait that jitter may take off, 0 to 1. Default: 0.5.
    public var jitter: Double

    /// Creates a policy; values are clamped to sensible ranges.
    public init(
        maximumAttempts: Int = 4, initialDelay: Duration = .milliseconds(500), maximumDelay: Duration = .seconds(8),
        jitter: Double = 0.5
    ) {
        self.maximumAttempts = max(1, min(maximumAttempts, 20))
        self.initialDelay = max(.zero, initialDelay)
        self.maximumDelay = max(self.initialDelay, maximumDelay)
        self.jitter = jitter.isFinite ? max(0, min(jitter, 1)) : 0
    }

    /// Never retries.
    public static let none = RetryPolicy(maximumAttempts: 1)

    /// The wait after failed attempt `attempt` (0 for the first), given a `random` draw in `[0, 1)` and the server's
    /// `Retry-After` in seconds.
    public func delay(afterAttempt attempt: Int, random: Double, retryAfterSeconds: Int64? = nil) -> Duration {
        var backoff = initialDelay
        for _ in 0..<max(0, min(attempt, 30)) where backoff < maximumDelay { backoff *= 2 }
        backoff = min(backoff, maximumDelay)
        let draw = random.isFinite ? max(0, min(random, 1)) : 0
        var wait = backoff * (1 - jitter * draw)
        if let retryAfterSeconds, retryAfterSeconds > 0 {
            wait = max(wait, min(.seconds(retryAfterSeconds), maximumDelay))
        }
        return wait
    }
}
