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
        /// The chain used last and its verdict, as in `entries`. A notification's three tokens, and most
        /// tokens after them, carry the same chain: compared with it first, such a chain is found without
        /// hashing its few kilobytes again, and its place in the eviction order stays the newest.
        var mostRecent: (chain: [String], verdict: Verdict)?
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
            if let recent = state.mostRecent, recent.chain == chain {
                return Self.isValid(recent.verdict, at: time) ? recent.verdict : nil
            }
            guard var entry = state.entries[chain] else { return nil }
            guard Self.isValid(entry.verdict, at: time) else { return nil }
            state.clock &+= 1
            entry.lastUse = state.clock
            state.entries[chain] = entry
            state.mostRecent = (chain, entry.verdict)
            return entry.verdict
        }
    }

    /// Remembers a verdict, evicting the least recently used chain when full.
    func store(_ verdict: Verdict, for chain: [String]) {
        guard capacity > 0 else { return }
        state.withLock { state in
            state.clock &+= 1
            state.entries[chain] = Entry(verdict: verdict, lastUse: state.clock)
            state.mostRecent = (chain, verdict)
            while state.entries.count > capacity {
                guard let oldest = state.entries.min(by: { $0.value.lastUse < $1.value.lastUse }) else { break }
                state.entries[oldest.key] = nil
            }
        }
    }

    private static func isValid(_ verdict: Verdict, at time: Instant) -> Bool {
        verdict.validFrom <= time && time <= verdict.validUntil
    }

    /// The number of cached chains (for tests and metrics).
    var count: Int { state.withLock { $0.entries.count } }
}
