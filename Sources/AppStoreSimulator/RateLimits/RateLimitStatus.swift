/// The answer of `GET`/`PUT /control/rate-limits`: the settings and how many requests were refused.
public struct RateLimitStatus: Sendable, Codable, Hashable {
    public var settings: RateLimitSettings
    /// Requests answered 429 since the limits were last set.
    public var refused: Int
}
