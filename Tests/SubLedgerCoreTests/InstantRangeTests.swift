import SubLedgerCore
import Testing

/// The accepted range of outside instants, and arithmetic on instants that never traps.
@Suite struct InstantRangeTests {
    @Test func theAcceptedRangeIsYears1970Through9999() {
        #expect(Instant.earliestAccepted.millisecondsSince1970 == 0)
        #expect(Instant.latestAccepted.millisecondsSince1970 == 253_402_300_799_000)  // 9999-12-31T23:59:59Z
        #expect(Instant(acceptedMillisecondsSince1970: Int64(0)) == Instant.earliestAccepted)
        #expect(Instant(acceptedMillisecondsSince1970: Int64(253_402_300_799_000)) == Instant.latestAccepted)
    }

    @Test(arguments: [Int64.min, -1, 253_402_300_799_001, 253_402_300_800_000, Int64.max])
    func wholeMillisecondsOutsideTheRangeAreRefused(milliseconds: Int64) {
        #expect(Instant(acceptedMillisecondsSince1970: milliseconds) == nil)
        #expect(!Instant(millisecondsSince1970: milliseconds).isAccepted)
    }

    @Test(
        arguments: [
            (1_698_148_900_000.5, 1_698_148_900_000), (1_698_148_900_000.999, 1_698_148_900_000), (0.25, 0),
            (253_402_300_799_000.5, 253_402_300_799_000),
        ] as [(Double, Int64)])
    func fractionalMillisecondsAreTruncatedTowardThePast(milliseconds: Double, expected: Int64) {
        #expect(Instant(acceptedMillisecondsSince1970: milliseconds) == Instant(millisecondsSince1970: expected))
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity, -0.5, 1e300, -1e300, 9.3e18, 253_402_300_799_001])
    func nonFiniteOrAbsurdNumbersAreRefused(milliseconds: Double) {
        #expect(Instant(acceptedMillisecondsSince1970: milliseconds) == nil)
    }

    @Test func addingSaturatesInsteadOfTrapping() {
        #expect(Instant(millisecondsSince1970: .max).adding(milliseconds: 1) == Instant(millisecondsSince1970: .max))
        #expect(Instant(millisecondsSince1970: .min).adding(milliseconds: -1) == Instant(millisecondsSince1970: .min))
        #expect(Instant(millisecondsSince1970: 10).adding(milliseconds: -3) == Instant(millisecondsSince1970: 7))
    }

    @Test func saturatingIntegerArithmeticHoldsAtTheEnds() {
        #expect(Int64.max.saturatingAdding(1) == .max)
        #expect(Int64.min.saturatingAdding(-1) == .min)
        #expect(Int64(40).saturatingAdding(2) == 42)
        #expect(Int64.max.saturatingMultiplied(by: 2) == .max)
        #expect(Int64.max.saturatingMultiplied(by: -2) == .min)
        #expect(Int64.min.saturatingMultiplied(by: -1) == .max)
        #expect(Int64(6).saturatingMultiplied(by: 7) == 42)
    }
}
