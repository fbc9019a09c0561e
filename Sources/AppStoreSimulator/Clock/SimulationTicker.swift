import ServiceLifecycle

/// Under an accelerated clock, applies renewals, expiries and notification retries as time flows.
/// (Under a manual clock nothing is due until the clock is advanced, so it only waits for shutdown.)
struct SimulationTicker: Service {
    let engine: SimulatorEngine
    let interval: Duration

    func run() async throws {
        guard engine.clock.mode == .accelerated else {
            try? await gracefulShutdown()
            return
        }
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try await Task.sleep(for: interval)
                await engine.tick()
            }
        }
    }
}
