import SeededRandom
import Testing

/// The generator's output for a seed is a contract: the simulator's identifiers and every printed test seed
/// replay only while these values hold (they were taken from the generator before it moved here).
@Suite struct SplitMix64Tests {
    @Test func seedZeroGivesTheReferenceSequence() {
        var random = SplitMix64(seed: 0)
        #expect(
            (0..<3).map { _ in random.next() } == [0xE220_A839_7B1D_CDAF, 0x6E78_9E6A_A1B9_65F4, 0x06C4_5D18_8009_454F])
    }

    @Test func aTestSeedGivesTheSameSequenceAsBeforeTheMove() {
        var random = SplitMix64(seed: 0x5EED_0001)
        #expect(
            (0..<3).map { _ in random.next() } == [0x0331_7BB4_875F_B038, 0xDC1F_E0F7_D1DC_60CC, 0x753B_132D_E64B_C477])
    }

    @Test func standardLibraryDrawsOnTheGeneratorRepeat() {
        var random = SplitMix64(seed: 7)
        #expect(Int.random(in: 0..<1000, using: &random) == 389)
        #expect(UInt8.random(in: 0...255, using: &random) == 28)
    }

    @Test func copiesContinueIndependently() {
        var first = SplitMix64(seed: 42)
        _ = first.next()
        var second = first
        #expect(first.next() == second.next())
        _ = first.next()
        #expect(first.next() != second.next())
    }
}
