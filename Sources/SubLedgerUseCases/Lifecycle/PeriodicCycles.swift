import Logging
import ServiceLifecycle

/// The loop of `poll`'s periodic services: a cycle at once, then one every `interval` until graceful shutdown
/// (which wakes the wait, so `poll` stops at once instead of after the interval), or the one cycle alone with
/// `once`. A failed cycle (the database went away mid-cycle: its leases run out, or its transaction rolled back)
/// is logged and the next one tries again; with `once` its error is thrown, so `poll --once` exits non-zero.
enum PeriodicCycles {
    static func run(
        once: Bool, interval: Duration, logger: Logger, failure: Logger.Message, _ cycle: () async throws -> Void
    ) async throws {
        repeat {
            do {
                try await cycle()
            } catch  where !once {
                logger.warning(failure, metadata: ["error": "\(error)"])
            }
            // With --once the group is already shutting down when the renewal job returns; the one cycle above
            // still runs to its end.
            if once || Task.isShuttingDownGracefully { break }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
        } while !Task.isCancelled && !Task.isShuttingDownGracefully
    }
}
