import SeededRandom
import Synchronization

/// Where a fault applies.
public enum FaultEndpoint: String, Sendable, Codable, CaseIterable {
    /// The Android Publisher API (`/androidpublisher/...`).
    case developerApi = "developer_api"
    /// The OAuth2 token endpoint (`POST /token`).
    case token
}

/// A fault rule (`PUT /control/faults/{endpoint}`).
public struct FaultRule: Sendable, Codable, Hashable {
    /// `http_500`, `http_503` (Google's `UNAVAILABLE` / `backendError`), or `latency` (the normal answer, late).
    public var kind: String
    /// Probability per request, 0 to 1. Default: 1.
    public var rate: Double?
    /// For `latency`: 1 to 60,000 ms. Default: 200.
    public var latencyMs: Int?
    /// Only the next N drawn requests fail, then the rule is removed.
    public var remaining: Int?

    public init(kind: String, rate: Double? = nil, latencyMs: Int? = nil, remaining: Int? = nil) {
        self.kind = kind
        self.rate = rate
        self.latencyMs = latencyMs
        self.remaining = remaining
    }

    static let kinds: Set<String> = ["http_500", "http_503", "latency"]

    func check() throws(SimulatorError) {
        guard Self.kinds.contains(kind) else {
            throw SimulatorError(.badRequest, "kind must be http_500, http_503 or latency")
        }
        if let rate, !(rate >= 0 && rate <= 1) { throw SimulatorError(.badRequest, "rate must be 0 to 1") }
        if let latencyMs, !(1...60_000).contains(latencyMs) {
            throw SimulatorError(.badRequest, "latency_ms must be 1 to 60000")
        }
        if let remaining, !(1...1_000_000).contains(remaining) {
            throw SimulatorError(.badRequest, "remaining must be 1 to 1000000")
        }
    }
}

/// The configured faults and the seeded generator that draws them.
final class FaultInjector: Sendable {
    private struct State {
        var rules: [FaultEndpoint: FaultRule] = [:]
        var random: SplitMix64
    }

    private let state: Mutex<State>

    init(seed: UInt64) { state = Mutex(State(random: SplitMix64(seed: seed ^ 0xFA17))) }

    var rules: [String: FaultRule] {
        state.withLock { state in
            Dictionary(uniqueKeysWithValues: state.rules.map { ($0.key.rawValue, $0.value) })
        }
    }

    func set(_ rule: FaultRule?, for endpoint: FaultEndpoint) { state.withLock { $0.rules[endpoint] = rule } }
    func clear() { state.withLock { $0.rules.removeAll() } }

    /// The fault to apply to this request, if one is drawn.
    func draw(_ endpoint: FaultEndpoint) -> FaultRule? {
        state.withLock { state in
            guard var rule = state.rules[endpoint] else { return nil }
            let draw = Double(state.random.next() >> 11) / Double(1 << 53)
            guard draw < (rule.rate ?? 1) else { return nil }
            if let remaining = rule.remaining {
                rule.remaining = remaining - 1
                state.rules[endpoint] = remaining <= 1 ? nil : rule
            }
            return rule
        }
    }
}
