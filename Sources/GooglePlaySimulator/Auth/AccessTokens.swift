import SeededRandom
import SubLedgerCore
import Synchronization

/// The access tokens the token endpoint issued, each valid for an hour of wall time.
final class AccessTokens: Sendable {
    static let lifetimeSeconds: Int64 = 3599

    private struct State {
        var expiries: [String: Instant] = [:]
        var random: SplitMix64
    }

    private let state: Mutex<State>

    init(seed: UInt64) { state = Mutex(State(random: SplitMix64(seed: seed ^ 0x70CE))) }

    /// A new token (`ya29.` and 64 hex digits), expiring `lifetimeSeconds` after `now`.
    func issue(now: Instant) -> String {
        state.withLock { state in
            var token = "ya29."
            for _ in 0..<4 { token += String(state.random.next(), radix: 16) }
            // Expired tokens are forgotten as new ones are issued, so the table stays small.
            state.expiries = state.expiries.filter { $0.value > now }
            state.expiries[token] = now.adding(milliseconds: Self.lifetimeSeconds * 1000)
            return token
        }
    }

    /// Whether `token` was issued and has not expired at `now`.
    func isValid(_ token: String, now: Instant) -> Bool {
        state.withLock { state in state.expiries[token].map { $0 > now } ?? false }
    }
}
