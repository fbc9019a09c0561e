/// How fast each app may call the simulated Server API (body of `PUT /control/rate-limits`).
public struct RateLimitSettings: Sendable, Codable, Hashable {
    /// Requests per second for every app; `nil`: no limit (the default).
    public var requestsPerSecond: Double?
    /// Per-app overrides by bundle id.
    public var perApp: [String: Double]?
    /// The most requests admitted at once after a quiet spell; default: one second's worth (at least 1).
    public var burst: Int?

    public init(requestsPerSecond: Double? = nil, perApp: [String: Double]? = nil, burst: Int? = nil) {
        self.requestsPerSecond = requestsPerSecond
        self.perApp = perApp
        self.burst = burst
    }

    func rate(for bundleID: String) -> Double? {
        perApp?[bundleID] ?? requestsPerSecond
    }

    /// Refuses rates that are not positive and finite, or a burst below 1.
    func validated() throws(SimulatorError) -> RateLimitSettings {
        for rate in [requestsPerSecond].compactMap({ $0 }) + (perApp.map { Array($0.values) } ?? []) {
            guard rate.isFinite, rate > 0, rate <= 1_000_000 else {
                throw SimulatorError(.badRequest, "requests_per_second must be above 0 and at most 1000000")
            }
        }
        if let burst, !(1...1_000_000).contains(burst) {
            throw SimulatorError(.badRequest, "burst must be 1 to 1000000")
        }
        return self
    }
}
