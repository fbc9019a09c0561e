import PostgresLibPQ
import SubLedgerCore

/// How stored inputs (receipts, signed transactions, notifications) that could not be applied are retried.
///
/// Every attempt is counted when it starts (at submission, or when the renewal job claims the input), so an
/// input whose application ends the process still counts towards `maximumAttempts`. After a failed attempt
/// the next one waits `base × 2^(attempts − 1)`, at most `maximum`; an input that failed `maximumAttempts`
/// times is `quarantined`: kept with its last error, listed by the `quarantined` report, never retried.
public struct StoredInputRetry: Sendable, Hashable {
    /// The wait after the first failure. Default 30 s.
    public var base: Duration
    /// The longest wait between attempts. Default 6 hours.
    public var maximum: Duration
    /// Attempts before an input is quarantined. Default 16 (about two days with the defaults).
    public var maximumAttempts: Int

    public init(base: Duration = .seconds(30), maximum: Duration = .seconds(6 * 3_600), maximumAttempts: Int = 16) {
        self.base = base
        self.maximum = maximum
        self.maximumAttempts = maximumAttempts
    }

    /// The wait after `attempts` attempts failed (without overflow for any count).
    public func delay(afterAttempts attempts: Int) -> Duration {
        let doublings = min(max(attempts - 1, 0), 40)
        let base = max(self.base.milliseconds, 1)
        let (product, overflow) = base.multipliedReportingOverflow(by: Int64(1) << doublings)
        let capped = overflow ? maximum.milliseconds : min(product, maximum.milliseconds)
        return .milliseconds(capped)
    }

    /// The next attempt's time after `attempts` (an SQL expression) failed attempts, at `now`: `now` + the capped
    /// exponential wait of this policy.
    func nextAttempt(now: Instant, attempts: PostgresQuery) -> PostgresQuery {
        let base = max(self.base.milliseconds, 1)
        let maximum = max(self.maximum.milliseconds, 1)
        let milliseconds: PostgresQuery = """
            \(now.millisecondsSince1970)::float8
                + least(\(maximum)::float8, \(base)::float8 * power(2::float8, least(greatest(\(attempts) - 1, 0), 40)))
            """
        return timestamptz(milliseconds: milliseconds)
    }
}
