import ServiceLifecycle
import SubLedgerUseCases

/// Runs a service that returns by itself (`poll --once`'s recovery, obligation sender and webhook clock,
/// which each do one pass) and then waits until its group asks it to stop.
///
/// ServiceLifecycle stops a group's services one at a time, in reverse order, once the renewal job has
/// returned; a service that ends on its own while another one is being stopped is "finished unexpectedly"
/// and fails the whole run, so `poll --once` exited 1 whenever one of these passes won that race.
struct ReturnsOnShutdown<Wrapped: Service>: Service, CustomStringConvertible {
    let wrapped: Wrapped

    init(_ wrapped: Wrapped) { self.wrapped = wrapped }

    var description: String { "\(Wrapped.self)" }

    func run() async throws {
        try await wrapped.run()
        // Cancellation (the group is cancelled) ends the wait as well.
        try? await gracefulShutdown()
    }
}
