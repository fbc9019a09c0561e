import SeededRandom
import Synchronization

/// Decides, per request and with the seeded generator, whether an endpoint's configured fault applies.
final class FaultInjector: Sendable {
    private struct State {
        var rules: [FaultEndpoint: FaultRule] = [:]
        var random: SplitMix64
    }

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
