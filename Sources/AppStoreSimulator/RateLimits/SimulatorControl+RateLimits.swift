extension SimulatorControl {
    /// Sets the Server API rate limits (`RateLimitSettings()` turns them off).
    @discardableResult
    public func setRateLimits(_ settings: RateLimitSettings) throws(SimulatorError) -> RateLimitStatus {
        engine.rateLimits.update(try settings.validated())
        return rateLimits()
    }

    /// The Server API rate limits and how many requests they refused.
    public func rateLimits() -> RateLimitStatus {
        RateLimitStatus(settings: engine.rateLimits.settings, refused: engine.rateLimits.refusedCount)
    }
}
