import Foundation
import Synchronization

/// Apple's App Store Server API rate limits, simulated: a token bucket per app (bundle id), refilled at a
/// configurable number of requests per second. A request over the limit is answered 429 with Apple's
/// body (`errorCode` 4290000) and a `Retry-After` holding the UNIX time in milliseconds when a request
/// will be admitted again, as Apple sends it. Off until configured (`PUT /control/rate-limits`).
final class ServerAPIRateLimits: Sendable {
    private struct Bucket {
        var tokens: Double
        var refilledAt: ContinuousClock.Instant
    }

    private struct State {
        var settings = RateLimitSettings()
        var buckets: [String: Bucket] = [:]
        var refused = 0
    }

    private let state = Mutex(State())

    /// The current settings.
    var settings: RateLimitSettings { state.withLock { $0.settings } }

    /// Requests answered 429 since the limits were last set.
    var refusedCount: Int { state.withLock { $0.refused } }

    /// Replaces the settings; every bucket starts full again.
    func update(_ settings: RateLimitSettings) {
        state.withLock {
            $0.settings = settings
            $0.buckets = [:]
            $0.refused = 0
        }
    }

    /// `nil` when a request of `bundleID` is admitted now (taking a token); else the 429 to answer.
    func admit(bundleID: String, now: ContinuousClock.Instant = .now, wallClock: Date = Date()) -> SimpleResponse? {
        state.withLock { state -> SimpleResponse? in
            guard let rate = state.settings.rate(for: bundleID) else { return nil }
            let burst = state.settings.burst.map(Double.init) ?? max(1, rate)
            var bucket = state.buckets[bundleID] ?? Bucket(tokens: burst, refilledAt: now)
            let elapsed = bucket.refilledAt.duration(to: now)
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            bucket.tokens = min(burst, bucket.tokens + seconds * rate)
            bucket.refilledAt = now
            defer { state.buckets[bundleID] = bucket }
            if bucket.tokens >= 1 {
                bucket.tokens -= 1
                return nil
            }
            state.refused += 1
            let waitMilliseconds = Int64(((1 - bucket.tokens) / rate * 1000).rounded(.up))
            let retryAt = Int64((wallClock.timeIntervalSince1970 * 1000).rounded(.up)) + max(1, waitMilliseconds)
            var response = ServerAPIError.rateLimited
            response.retryAfter = String(retryAt)
            return response
        }
    }
}
