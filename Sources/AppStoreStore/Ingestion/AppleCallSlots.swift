import SubLedgerUseCases
import Synchronization

/// The calls to Apple one process makes at once, at most `limit`: a call beyond it waits for a free slot, up to
/// `wait`, before it is refused (a request then answers 503 with `Retry-After`). The HTTP client then never
/// queues more calls than it has connections for, so a slow Apple makes requests wait instead of failing.
public final class AppleCallSlots: Sendable {
    private struct Waiter {
        var id: UInt64
        var continuation: CheckedContinuation<Bool, Never>
        var timeout: Task<Void, Never>?
    }

    private struct State {
        var free: Int
        var waiters: [Waiter] = []
        var nextID: UInt64 = 0
    }

    /// Calls at once.
    public let limit: Int
    /// How long a call waits for a free slot before it is refused.
    public let wait: Duration
    private let state: Mutex<State>

    public init(limit: Int, wait: Duration) {
        self.limit = max(1, limit)
        self.wait = wait
        self.state = Mutex(State(free: max(1, limit)))
    }

    /// Takes a slot: `true` at once when one is free or as soon as one is released, `false` when none was
    /// released within `wait`. Every `true` must be followed by one `release()`.
    public func acquire() async -> Bool {
        await withCheckedContinuation { continuation in
            let id: UInt64? = state.withLock { state in
                if state.free > 0 {
                    state.free -= 1
                    return nil
                }
                state.nextID += 1
                state.waiters.append(Waiter(id: state.nextID, continuation: continuation))
                return state.nextID
            }
            guard let id else {
                continuation.resume(returning: true)
                return
            }
            let wait = self.wait
            let timeout = Task {
                try? await Task.sleep(for: wait)
                guard !Task.isCancelled else { return }
                self.expire(id)
            }
            let alreadyServed = state.withLock { state in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return true }
                state.waiters[index].timeout = timeout
                return false
            }
            if alreadyServed { timeout.cancel() }
        }
    }

    /// Gives a slot back: to the longest waiting call, else to the pool.
    public func release() {
        let next: Waiter? = state.withLock { state in
            if state.waiters.isEmpty {
                state.free = min(limit, state.free + 1)
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.timeout?.cancel()
        next?.continuation.resume(returning: true)
    }

    private func expire(_ id: UInt64) {
        let expired: Waiter? = state.withLock { state in
            guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return state.waiters.remove(at: index)
        }
        expired?.continuation.resume(returning: false)
    }
}
