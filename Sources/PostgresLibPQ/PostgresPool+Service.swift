import ServiceLifecycle

extension PostgresPool: Service {
    /// Keeps the pool open until graceful shutdown (or cancellation), then shuts it down like `shutdown()`:
    /// waiting and later units of work fail with `.poolClosed`, LISTEN streams end, work already running
    /// finishes, and `run()` returns once every connection is closed.
    ///
    /// Put the pool first in a `ServiceGroup`: the group shuts its services down in reverse order, so the
    /// pool closes after the services that use it have drained their requests.
    public func run() async throws {
        // Throws `CancellationError` when the group is cancelled instead; the pool closes all the same.
        try? await gracefulShutdown()
        logger.debug("PostgreSQL pool shutting down gracefully")
        await shutdown()
    }
}
