import SeededRandom

/// The suites' seeded generator is the simulator's (`SeededRandom.SplitMix64`), so test files that import
/// only `SubLedgerTestSupport` keep naming it `SplitMix64`.
public typealias SplitMix64 = SeededRandom.SplitMix64
