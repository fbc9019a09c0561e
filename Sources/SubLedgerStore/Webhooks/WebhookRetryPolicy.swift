/// When a webhook delivery that failed is tried again, when it is given up, and when its endpoint is paused.
///
/// After the n-th failed attempt the next one waits a random time between half and all of
/// `min(base × 2^(n−1), maximum)` ("equal jitter": deliverers that failed together spread out, and the wait
/// still grows). With the defaults (10 s, 1 h) the waits are 5–10 s, 10–20 s, 20–40 s, … and from the 10th
/// failure on 30–60 min: about 100 attempts in the first three days (at least 80). A delivery is marked
/// `failed` at a failed attempt once it is `giveUpAfter` old (counted from the delivery row, that is from its
/// event for the fan-out, from the replay for a replay) and has had at least `minimumAttempts` attempts, so a
/// backlog that waited behind a paused endpoint still gets that many tries after resuming. docs/guides/webhooks.md,
/// "Delivery".
public struct WebhookRetryPolicy: Sendable, Hashable {
    /// The wait after the first failure (before jitter). Default 10 s.
    public var base: Duration
    /// The longest wait between two attempts (before jitter). Default 1 hour.
    public var maximum: Duration
    /// How long a delivery is retried before a failed attempt marks it `failed`. Default 3 days.
    public var giveUpAfter: Duration
    /// The fewest attempts a delivery gets before it is marked `failed`. Default 10.
    public var minimumAttempts: Int
    /// Consecutive failed attempts of an endpoint that, once they have lasted `pauseAfter`, pause it as
    /// `failing`. Default 10.
    public var pauseAfterFailures: Int
    /// How long an endpoint's failures must have lasted before it is paused. Default 1 hour.
    public var pauseAfter: Duration

    public init(
        base: Duration = .seconds(10), maximum: Duration = .seconds(3_600),
        giveUpAfter: Duration = .seconds(72 * 3_600), minimumAttempts: Int = 10,
        pauseAfterFailures: Int = 10, pauseAfter: Duration = .seconds(3_600)
    ) {
        self.base = base
        self.maximum = maximum
        self.giveUpAfter = giveUpAfter
        self.minimumAttempts = minimumAttempts
        self.pauseAfterFailures = pauseAfterFailures
        self.pauseAfter = pauseAfter
    }

    /// The longest wait after `attempts` failed attempts (without overflow for any count), before jitter.
    public func ceiling(afterAttempts attempts: Int) -> Duration {
        let doublings = min(max(attempts - 1, 0), 40)
        let base = max(self.base.milliseconds, 1)
        let maximum = max(self.maximum.milliseconds, 1)
        let (product, overflow) = base.multipliedReportingOverflow(by: Int64(1) << doublings)
        return .milliseconds(overflow ? maximum : min(product, maximum))
    }

    /// The wait after `attempts` failed attempts, with `random` in `0..<1` choosing within the jitter.
    public func delay(afterAttempts attempts: Int, random: Double) -> Duration {
        let ceiling = ceiling(afterAttempts: attempts).milliseconds
        let fraction = min(max(random, 0), 1)
        return .milliseconds(ceiling / 2 + Int64((Double(ceiling - ceiling / 2) * fraction).rounded(.down)))
    }

    /// The wait after `attempts` failed attempts, with the system's random numbers.
    public func delay(afterAttempts attempts: Int) -> Duration {
        delay(afterAttempts: attempts, random: Double.random(in: 0..<1))
    }
}
