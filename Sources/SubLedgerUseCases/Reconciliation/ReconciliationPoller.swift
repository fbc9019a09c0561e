import Logging
import ServiceLifecycle

/// Runs every store's reconciliation (`StoreReconciliation`: what dropped pushes missed) at its own interval, one
/// after the other: the one poller `poll` runs for every store. Each has a pass when the poller starts, and the next
/// `interval` after the end of its last one.
///
/// A pass that throws is logged and counted; the others go on, and it runs again at its next time. With `once`
/// (`poll --once`) each runs one pass, and the first error thrown is thrown after all have run.
public struct ReconciliationPoller: Service {
    public struct Configuration: Sendable {
        /// One pass of each, then return.
        public var once = false

        public init() {}
    }

    let configuration: Configuration
    let reconciliations: [any StoreReconciliation]
    let logger: Logger

    public init(configuration: Configuration, reconciliations: [any StoreReconciliation], logger: Logger) {
        self.configuration = configuration
        self.reconciliations = reconciliations
        self.logger = logger
    }

    public func run() async throws {
        guard !reconciliations.isEmpty else { return }
        let clock = ContinuousClock()
        let start = clock.now
        var schedule = ReconciliationSchedule(count: reconciliations.count)
        var firstError: (any Error)?
        repeat {
            for index in schedule.due(at: clock.now - start) {
                if Task.isCancelled { break }
                do {
                    try await pass(reconciliations[index])
                } catch {
                    if firstError == nil { firstError = error }
                }
                schedule.ran(index, every: reconciliations[index].interval, endedAt: clock.now - start)
            }
            if configuration.once || Task.isShuttingDownGracefully { break }
            let wait = schedule.wait(at: clock.now - start)
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: wait) }
            } catch {
                break
            }
        } while !Task.isCancelled && !Task.isShuttingDownGracefully
        if configuration.once, let firstError { throw firstError }
    }

    /// One pass of `reconciliation`, logged and counted.
    func pass(_ reconciliation: any StoreReconciliation) async throws {
        let store = reconciliation.store.rawValue
        do {
            let outcome = try await reconciliation.reconcile()
            if outcome.isWorthLogging { logger.info("\(outcome)", metadata: ["store": "\(store)"]) }
            ReconciliationMetrics.pass(store: store, failed: false)
        } catch {
            logger.error("reconciliation failed", metadata: ["store": "\(store)", "error": "\(error)"])
            ReconciliationMetrics.pass(store: store, failed: true)
            throw error
        }
    }
}

/// When each of a poller's reconciliations is due, as offsets from the poller's start: all at once at first, then
/// each `interval` after its last pass ended.
struct ReconciliationSchedule: Sendable, Equatable {
    /// Each one's next time.
    private(set) var next: [Duration]

    init(count: Int) {
        next = Array(repeating: .zero, count: count)
    }

    /// The ones due at `now`, in the order they were given.
    func due(at now: Duration) -> [Int] {
        next.indices.filter { next[$0] <= now }
    }

    /// Records that `index`'s pass ended at `now`.
    mutating func ran(_ index: Int, every interval: Duration, endedAt now: Duration) {
        next[index] = now + max(interval, .zero)
    }

    /// How long until the next one is due (zero when one is due now).
    func wait(at now: Duration) -> Duration {
        guard let soonest = next.min() else { return .zero }
        return max(.zero, soonest - now)
    }
}
