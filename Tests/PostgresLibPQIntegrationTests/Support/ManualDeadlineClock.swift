import PostgresLibPQ
import Synchronization

/// A pool deadline clock that moves only when the test moves it: `advance(by:)` runs every sweep then due, in
/// deadline order, before it returns.
final class ManualDeadlineClock: Sendable {
    private struct Scheduled {
        var deadline: UInt64
        var action: @Sendable () -> Void
    }

    private struct State {
        var now: UInt64 = 1_000_000_000
        var scheduled: [Scheduled] = []
    }

    private let state = Mutex(State())

    /// The clock to hand a pool.
    var clock: PoolDeadlineClock {
        PoolDeadlineClock(
            now: { [self] in state.withLock { $0.now } },
            schedule: { [self] deadline, action in
                state.withLock { $0.scheduled.append(Scheduled(deadline: deadline, action: action)) }
            })
    }

    /// Sweeps scheduled and not yet run.
    var pending: Int { state.withLock { $0.scheduled.count } }

    func advance(by duration: Duration) {
        let (seconds, attoseconds) = duration.components
        let nanoseconds = UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
        let due = state.withLock { state -> [Scheduled] in
            state.now += nanoseconds
            let now = state.now
            let due = state.scheduled.filter { $0.deadline <= now }.sorted { $0.deadline < $1.deadline }
            state.scheduled.removeAll { $0.deadline <= now }
            return due
        }
        for sweep in due { sweep.action() }
    }
}
