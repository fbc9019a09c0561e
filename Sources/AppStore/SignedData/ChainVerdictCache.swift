import Crypto
import SubLedgerCore
import Synchronization

/// A bounded least-recently-used cache of certificate-chain verdicts, keyed by the exact `x5c` strings.
///
/// Only the outcome of chain building is cached (the leaf's key and the window in which every certificate
/// of the chain is valid); the JWS signature is checked on every call. A verdict is reused only for
/// validation times inside its window, so caching never widens what is accepted.
final class ChainVerdictCache: Sendable {
    /// What a successful chain validation established.
    struct Verdict: Sendable {
        var leafKey: P256.Signing.PublicKey
        var validFrom: Instant
        var validUntil: Instant
    }

    private struct Entry {
        var verdict: Verdict
        var lastUse: UInt64
    }

    private struct State {
        var entries: [[String]: Entry] = [:]
        var clock: UInt64 = 0
    }

    private let capacity: Int
    private let state = Mutex(State())

    /// A cache holding at most `capacity` chains; `0` disables caching.
    init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    /// The cached verdict for this chain when `time` is inside its validity window.
    func verdict(for chain: [String], at time: Instant) -> Verdict? {
        guard capacity > 0 else { return nil }
        return state.withLock { state in
            guard var entry = state.entries[chain] else { return nil }
            guard entry.verdict.validFrom <= time, time <= entry.verdict.validUntil else { return nil }
            state.clock &+= 1
            entry.lastUse = state.clock
            state.entries[chain] = entry
            return entry.verdict
        }
    }

    /// Remembers a verdict, evicting the least recently used chain when full.
    func store(_ verdict: Verdict, for chain: [String]) {
        guard capacity > 0 else { return }
        state.withLock { state in
            state.clock &+= 1
            state.entries[chain] = Entry(verdict: verdict, lastUse: state.clock)
            while state.entries.count > capacity {
                guard let oldest = state.entries.min(by: { $0.value.lastUse < $1.value.lastUse }) else { break }
                state.entries[oldest.key] = nil
            }
        }
    }

    /// The number of cached chains (for tests and metrics).
    var count: Int { state.withLock { $0.entries.count } }
}
