/// The one seeded pseudo-random generator of SubLedger (SplitMix64): the simulator's identifiers, UUIDs and
/// fault draws, and the test suites' property and fuzz cases, repeat exactly from their seed.
///
/// Its output for a seed must never change: simulator runs and printed test seeds depend on it
/// (`SeededRandomTests` pins a few values).
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator whose sequence is determined by `seed` alone.
    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
