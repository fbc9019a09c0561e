import Metrics
import SubLedgerUseCases
import Synchronization

/// Stops calling Apple for a while after repeated failures to reach it, so that requests answer 503 with
/// `Retry-After` at once instead of each waiting out its own timeout.
///
/// Closed: calls go through; `failureThreshold` consecutive failures (timeouts, refused connections, 5xx)
/// open it. Open: calls are refused for `cooldown`. Then one trial call goes through (half-open): success
/// closes it, failure opens it again. Nothing is lost by a refusal: inputs are stored before Apple is called
/// and the renewal job verifies them later. Exported as the gauge `subledger_apple_circuit_open` (1 while
/// open) and the counter `subledger_apple_circuit_refusals_total`.
public final class AppleCircuitBreaker: Sendable {
    private struct State {
        var consecutiveFailures = 0
        var openUntil: ContinuousClock.Instant?
        /// When the half-open trial call was let through; a trial whose outcome is never recorded lets
        /// another through after `cooldown`, so the breaker cannot stay stuck.
        var trialStartedAt: ContinuousClock.Instant?
    }

    /// Consecutive failures that open the breaker; 0 disables it.
    public let failureThreshold: Int
    /// How long an open breaker refuses calls.
    public let cooldown: Duration
    private let state = Mutex(State())
    private let clock = ContinuousClock()
    private let recoveryHandlers = Mutex<[@Sendable () -> Void]>([])

    public init(failureThreshold: Int, cooldown: Duration) {
        self.failureThreshold = failureThreshold
        self.cooldown = cooldown
        Gauge(label: "subledger_apple_circuit_open").record(0)
    }

    /// `nil` when a call may go to Apple now; else how long until the breaker lets one through.
    public func refusal() -> Duration? {
        guard failureThreshold > 0 else { return nil }
        let now = clock.now
        let wait: Duration? = state.withLock { state in
            guard let openUntil = state.openUntil else { return nil }
            if now < openUntil { return openUntil - now }
            if let started = state.trialStartedAt, now - started < cooldown { return cooldown - (now - started) }
            state.trialStartedAt = now
            return nil
        }
        if wait != nil { Counter(label: "subledger_apple_circuit_refusals_total").increment() }
        return wait
    }

    /// Records that Apple answered (whatever it said about the input). After failures (the breaker closing, or a
    /// call succeeding after failed ones) the recovery handlers run.
    public func recordSuccess() {
        let (wasOpen, recovered) = state.withLock { state in
            let wasOpen = state.openUntil != nil
            let recovered = wasOpen || state.consecutiveFailures > 0
            state = State()
            return (wasOpen, recovered)
        }
        if wasOpen { Gauge(label: "subledger_apple_circuit_open").record(0) }
        if recovered {
            for handler in recoveryHandlers.withLock({ $0 }) { handler() }
        }
    }

    /// Runs `handler` each time Apple answers again after failing (see `recordSuccess`): the inputs deferred for
    /// Apple are then due at once. The handler must return quickly (start a task for slow work).
    public func onRecovery(_ handler: @escaping @Sendable () -> Void) {
        recoveryHandlers.withLock { $0.append(handler) }
    }

    /// Records that Apple could not be reached or failed.
    public func recordFailure() {
        guard failureThreshold > 0 else { return }
        let now = clock.now
        let opened = state.withLock { state in
            state.consecutiveFailures += 1
            let trialFailed = state.trialStartedAt != nil
            state.trialStartedAt = nil
            guard trialFailed || state.consecutiveFailures >= failureThreshold else { return false }
            state.openUntil = now + cooldown
            return true
        }
        if opened { Gauge(label: "subledger_apple_circuit_open").record(1) }
    }

    /// Whether calls are refused now.
    public var isOpen: Bool {
        let now = clock.now
        return state.withLock { state in state.openUntil.map { now < $0 } ?? false }
    }
}
