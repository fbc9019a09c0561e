import SeededRandom
import Synchronization

/// Decides, per request and with the seeded generator, whether an endpoint's configured fault applies.
final class FaultInjector: Sendable {
    private struct State {
        var rules: [FaultEndpoint: FaultRule] = [:]
        var random: SplitMix64
        /// Per endpoint, the requests held by a `gather` rule now, and how many gatherings were released.
        var held: [FaultEndpoint: Int] = [:]
        var released: [FaultEndpoint: UInt64] = [:]
    }

    /// How often a held request looks whether its gathering was released.
    private static let holdPoll: Duration = .milliseconds(5)
    /// The most requests one gathering waits for.
    static let gatherLimit = 10_000

    private let state: Mutex<State>

    init(seed: UInt64) {
        state = Mutex(State(random: SplitMix64(seed: seed ^ 0xFA17_FA17_FA17_FA17)))
    }

    func set(_ rule: FaultRule?, for endpoint: FaultEndpoint) {
        state.withLock { $0.rules[endpoint] = rule }
    }

    func clear() {
        state.withLock { $0.rules.removeAll() }
    }

    var rules: [FaultEndpoint: FaultRule] { state.withLock { $0.rules } }

    /// Holds a request until `count` requests of the endpoint are held at once (then all of them go on together),
    /// or until `limit` has passed.
    func hold(_ endpoint: FaultEndpoint, until count: Int, atMost limit: Duration) async {
        let wanted = min(max(count, 1), Self.gatherLimit)
        let deadline = ContinuousClock.now.advanced(by: limit)
        let round: UInt64? = state.withLock { state in
            let round = state.released[endpoint, default: 0]
            let held = state.held[endpoint, default: 0] + 1
            if held >= wanted {
                state.held[endpoint] = 0
                state.released[endpoint] = round &+ 1
                return nil
            }
            state.held[endpoint] = held
            return round
        }
        guard let round else { return }
        while ContinuousClock.now < deadline {
            if state.withLock({ $0.released[endpoint, default: 0] != round }) { return }
            try? await Task.sleep(for: Self.holdPoll)
        }
        // Gave up waiting: no longer counted among the held.
        state.withLock { state in
            if state.released[endpoint, default: 0] == round {
                state.held[endpoint] = max(state.held[endpoint, default: 0] - 1, 0)
            }
        }
    }

    /// The fault to apply to this request, if any.
    func draw(_ endpoint: FaultEndpoint) -> FaultRule? {
        state.withLock { state in
            guard var rule = state.rules[endpoint] else { return nil }
            let rate = min(max(rule.rate ?? 1, 0), 1)
            guard rate >= 1 || Double(state.random.next() >> 11) / Double(1 << 53) < rate else { return nil }
            if let remaining = rule.remaining {
                guard remaining > 0 else {
                    state.rules[endpoint] = nil
                    return nil
                }
                rule.remaining = remaining - 1
                state.rules[endpoint] = rule.remaining == 0 ? nil : rule
            }
            return rule
        }
    }
}
