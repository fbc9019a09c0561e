import SeededRandom
import SubLedgerCore
import Testing

/// `RFC3339`, SubLedger's one writer and reader of timestamps: exact to the millisecond in both directions,
/// the offsets and fractions callers rely on read, everything else refused without trapping.
@Suite struct RFC3339Tests {
    static let year1: Int64 = -62_135_596_800_000  // 0001-01-01T00:00:00Z
    static let year10000: Int64 = 253_402_300_800_000  // 10000-01-01T00:00:00Z

    // MARK: Formatting

    @Test(
        arguments: [
            (Int64(0), "1970-01-01T00:00:00.000Z"),
            (1_735_689_600_123, "2025-01-01T00:00:00.123Z"),
            (1_709_210_096_007, "2024-02-29T12:34:56.007Z"),  // a leap day
            (951_782_400_000, "2000-02-29T00:00:00.000Z"),  // a leap day of a year divisible by 400
            (1_795_305_600_500, "2026-11-22T00:00:00.500Z"),
            (-1, "1969-12-31T23:59:59.999Z"),
            (253_402_300_799_000, "9999-12-31T23:59:59.000Z"),  // Instant.latestAccepted
            (253_402_300_799_999, "9999-12-31T23:59:59.999Z"),
            (year1, "0001-01-01T00:00:00.000Z"),
            (-62_167_219_200_000, "0000-01-01T00:00:00.000Z"),
        ] as [(Int64, String)])
    func instantsAreWrittenInUTCWithMilliseconds(milliseconds: Int64, text: String) {
        #expect(RFC3339.format(Instant(millisecondsSince1970: milliseconds)) == text)
    }

    @Test func yearsBeyondFourDigitsAreWrittenWithASignNeverTrapping() {
        #expect(RFC3339.format(Instant(millisecondsSince1970: Self.year10000)) == "+10000-01-01T00:00:00.000Z")
        #expect(RFC3339.format(Instant(millisecondsSince1970: -62_167_219_200_001)) == "-0001-12-31T23:59:59.999Z")
        #expect(RFC3339.format(Instant(millisecondsSince1970: .max)) == "+292278994-08-17T07:12:55.807Z")
        #expect(RFC3339.format(Instant(millisecondsSince1970: .min)) == "-292275055-05-16T16:47:04.192Z")
    }

    @Test func theDayAloneIsTheUTCDateOfTheInstant() {
        #expect(RFC3339.day(Instant(millisecondsSince1970: 1_709_251_199_999)) == "2024-02-29")
        #expect(RFC3339.day(Instant(millisecondsSince1970: 1_709_251_200_000)) == "2024-03-01")
        #expect(RFC3339.day(Instant(millisecondsSince1970: -1)) == "1969-12-31")
        #expect(RFC3339.day(Instant(millisecondsSince1970: Self.year10000)) == "+10000-01-01")
    }

    @Test func wholeSecondsAreTruncatedTowardThePast() {
        #expect(
            RFC3339.format(Instant(millisecondsSince1970: 1_672_531_200_999), precision: .seconds)
                == "2023-01-01T00:00:00Z")
        #expect(RFC3339.format(Instant(millisecondsSince1970: -1), precision: .seconds) == "1969-12-31T23:59:59Z")
        #expect(RFC3339.format(Instant.latestAccepted, precision: .seconds) == "9999-12-31T23:59:59Z")
    }

    @Test func appendWritesTheSameBytesAfterWhatIsThere() {
        var rng = SplitMix64(seed: 0x3339_0001)
        for _ in 0..<1_000 {
            let instant = Instant(millisecondsSince1970: Int64.random(in: Self.year1..<Self.year10000, using: &rng))
            for precision in [RFC3339.Precision.milliseconds, .seconds] {
                var bytes = Array("\"at\":\"".utf8)
                RFC3339.append(instant, precision: precision, to: &bytes)
                #expect(bytes == Array(("\"at\":\"" + RFC3339.format(instant, precision: precision)).utf8))
            }
        }
    }

    /// The fields of `milliseconds`, found by walking whole years and months from 1970: slow and obviously
    /// right, the oracle the formatter's day arithmetic is checked against.
    static func naiveFields(_ milliseconds: Int64) -> String {
        func isLeap(_ year: Int64) -> Bool { (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 }
        let dayLength: Int64 = 86_400_000
        var days = milliseconds >= 0 ? milliseconds / dayLength : (milliseconds + 1) / dayLength - 1
        let rest = milliseconds - days * dayLength
        var year: Int64 = 1970
        while days < 0 {
            year -= 1
            days += isLeap(year) ? 366 : 365
        }
        while days >= (isLeap(year) ? 366 : 365) {
            days -= isLeap(year) ? 366 : 365
            year += 1
        }
        let monthLengths: [Int64] = [31, isLeap(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        var month = 0
        while days >= monthLengths[month] {
            days -= monthLengths[month]
            month += 1
        }
        func pad(_ value: Int64, _ width: Int) -> String {
            String(repeating: "0", count: max(0, width - String(value).count)) + String(value)
        }
        return "\(pad(year, 4))-\(pad(Int64(month + 1), 2))-\(pad(days + 1, 2))T\(pad(rest / 3_600_000, 2)):"
            + "\(pad(rest / 60_000 % 60, 2)):\(pad(rest / 1000 % 60, 2)).\(pad(rest % 1000, 3))Z"
    }

    @Test func formattingAgreesWithANaiveCalendarWalk() {
        var rng = SplitMix64(seed: 0x3339_0002)
        var samples: [Int64] = [0, -1, 86_399_999, 86_400_000, Self.year1, Self.year10000 - 1]
        for _ in 0..<300 { samples.append(Int64.random(in: Self.year1..<Self.year10000, using: &rng)) }
        for milliseconds in samples {
            #expect(
                RFC3339.format(Instant(millisecondsSince1970: milliseconds)) == Self.naiveFields(milliseconds),
                "\(milliseconds) ms")
        }
    }

    // MARK: Parsing

    @Test(
        arguments: [
            ("2023-01-01T00:00:00Z", Int64(1_672_531_200_000)),
            ("2023-01-01t00:00:00z", 1_672_531_200_000),  // lower case (RFC 3339, section 5.6)
            ("2023-01-01 00:00:00Z", 1_672_531_200_000),  // a space for the T (likewise)
            ("2023-01-01T00:00:00.000Z", 1_672_531_200_000),
            ("2023-01-01T00:00:00+00:00", 1_672_531_200_000),
            ("2023-01-01T00:00:00-00:00", 1_672_531_200_000),
            ("2023-01-01T00:00:00+0000", 1_672_531_200_000),
            ("2023-01-01T02:00:00+02:00", 1_672_531_200_000),
            ("2023-01-01T01:00:00+0100", 1_672_531_200_000),  // ISO 8601's basic offset, as some receipts have it
            ("2022-12-31T19:30:00.250-0430", 1_672_531_200_250),  // the offset crosses the year
            ("2022-12-31T19:30:00.250-04:30", 1_672_531_200_250),
            ("2023-01-01T23:59:00+23:59", 1_672_531_200_000),
            ("2026-11-22T01:00:00+01:00", 1_795_305_600_000),
            ("2024-02-29T12:34:56.007Z", 1_709_210_096_007),
            ("2000-02-29T00:00:00Z", 951_782_400_000),
        ] as [(String, Int64)])
    func timesWithOffsetsAreRead(text: String, milliseconds: Int64) {
        #expect(RFC3339.parse(text) == Instant(millisecondsSince1970: milliseconds))
    }

    @Test(
        arguments: [
            (".5", Int64(500)), (".05", 50), (".005", 5), (".123", 123), (".1239", 123), (".999999999", 999),
            (".000999", 0), (".12345678901234567890123456789012345678901234567890", 123),
        ] as [(String, Int64)])
    func fractionsOfAnyLengthAreTruncatedToMilliseconds(fraction: String, milliseconds: Int64) {
        #expect(
            RFC3339.parse("2026-11-22T00:00:00\(fraction)Z")
                == Instant(millisecondsSince1970: 1_795_305_600_000 + milliseconds))
    }

    @Test func theAcceptedRangeBoundsAreReadAndAnythingBeyondIsReadButNotAccepted() {
        #expect(RFC3339.parse("1970-01-01T00:00:00Z") == .earliestAccepted)
        #expect(Instant(acceptedRFC3339: "1970-01-01T00:00:00Z") == .earliestAccepted)
        #expect(Instant(acceptedRFC3339: "9999-12-31T23:59:59Z") == .latestAccepted)
        #expect(Instant(acceptedRFC3339: "9999-12-31T23:59:59.000Z") == .latestAccepted)
        #expect(Instant(acceptedRFC3339: "10000-01-01T00:00:00Z") == nil)

        // Read (a receipt reader tells "out of range" from "not a date"), but outside the accepted range.
        let outside: [(String, Int64)] = [
            ("1969-12-31T23:59:59.999Z", -1),
            ("0001-01-01T00:00:00Z", Self.year1),
            ("0000-01-01T00:00:00Z", -62_167_219_200_000),
            ("9999-12-31T23:59:59.001Z", 253_402_300_799_001),
            ("9999-12-31T23:59:59-01:00", 253_402_304_399_000),  // an offset reaches into year 10000
            ("0001-01-01T00:00:00+23:59", Self.year1 - 86_340_000),  // and back into year 0
        ]
        for (text, milliseconds) in outside {
            #expect(RFC3339.parse(text) == Instant(millisecondsSince1970: milliseconds), "\(text)")
            #expect(Instant(acceptedRFC3339: text) == nil, "\(text)")
        }
    }

    @Test(arguments: [
        // Not a date-time.
        "", "yesterday", "now", "1793491200000", "2026-11-22", "2026-11-22T10:00Z", "2026-11-22T10:00:00",
        "2026-11-22T10Z", "T10:00:00Z", "22/11/2026 10:00:00Z", "2026/11/22T10:00:00Z",
        // Fields out of range, or days the month does not have.
        "2026-13-01T00:00:00Z", "2026-00-10T00:00:00Z", "2026-11-00T00:00:00Z", "2026-11-31T00:00:00Z",
        "2026-04-31T00:00:00Z", "2023-02-29T00:00:00Z", "1900-02-29T00:00:00Z", "2026-02-30T00:00:00Z",
        "2026-11-22T24:00:00Z", "2026-11-22T23:60:00Z", "2026-11-22T23:59:60Z", "2016-12-31T23:59:60Z",
        // Offsets.
        "2023-01-01T00:00:00+01", "2023-01-01T00:00:00+2400", "2023-01-01T00:00:00+24:00",
        "2023-01-01T00:00:00+0160", "2023-01-01T00:00:00+01:60", "2023-01-01T00:00:00+01:0",
        "2023-01-01T00:00:00+1:00", "2023-01-01T00:00:00+01:00:00", "2023-01-01T00:00:00+01::00",
        "2023-01-01T00:00:00ZZ", "2023-01-01T00:00:00UTC", "2023-01-01T00:00:00 Z", "2023-01-01T00:00:00GMT",
        // Fractions.
        "2023-01-01T00:00:00.Z", "2023-01-01T00:00:00,5Z", "2023-01-01T00:00:00.5.5Z", "2023-01-01T00:00:00.-5Z",
        // Widths, signs, characters around or inside.
        "10000-01-01T00:00:00Z", "+2026-11-22T00:00:00Z", "-2026-11-22T00:00:00Z", "226-11-22T00:00:00Z",
        "2026-1-22T00:00:00Z", "2026-11-2T00:00:00Z", "2026-11-22T0:00:00Z", "2026-11-22T00:0:00Z",
        " 2026-11-22T00:00:00Z", "2026-11-22T00:00:00Z ", "2026-11-22T00:00:00Z\n", "2026-11-22T00:00:00Z\u{0}",
        "2026-11-22\u{0}T00:00:00Z", "\u{0}", "2026-11-22T00:00:00\u{0}Z", "2026-11-22_00:00:00Z",
        "２０２６-11-22T00:00:00Z", "2026-11-22T00:00:00.１Z", "2026-11-22T00:00:00Ζ", "2026-11-22T00:00:00+০১:00",
        "2026-11-22T00:00:00+01:00Z", "2026-11-22TT00:00:00Z", "2026-11-22T00:00:00.5",
    ])
    func anythingElseIsRefused(text: String) {
        #expect(RFC3339.parse(text) == nil)
        #expect(Instant(acceptedRFC3339: text) == nil)
    }

    // MARK: Properties

    @Test func everyInstantOfFourDigitYearsRoundTrips() {
        var rng = SplitMix64(seed: 0x3339_0003)
        var samples: [Int64] = [Self.year1, Self.year10000 - 1, -62_167_219_200_000, 0, -1, 951_782_400_000]
        for _ in 0..<20_000 { samples.append(Int64.random(in: -62_167_219_200_000..<Self.year10000, using: &rng)) }
        // Densely around today, where every stored time lies.
        for _ in 0..<20_000 { samples.append(Int64.random(in: 1_600_000_000_000...2_000_000_000_000, using: &rng)) }
        for milliseconds in samples {
            let instant = Instant(millisecondsSince1970: milliseconds)
            let text = RFC3339.format(instant)
            #expect(RFC3339.parse(text) == instant, "\(text)")
            // Whole seconds read back as the second the instant falls in.
            let second = milliseconds - ((milliseconds % 1000) + 1000) % 1000
            #expect(
                RFC3339.parse(RFC3339.format(instant, precision: .seconds)) == Instant(millisecondsSince1970: second))
        }
    }

    @Test func anOffsetNamesTheSameInstantAsUTC() {
        var rng = SplitMix64(seed: 0x3339_0004)
        for _ in 0..<5_000 {
            let instant = Instant(millisecondsSince1970: Int64.random(in: 0..<Self.year10000 - 86_400_000, using: &rng))
            let hours = Int64.random(in: 0...23, using: &rng)
            let minutes = Int64.random(in: 0...59, using: &rng)
            let sign: Int64 = Bool.random(using: &rng) ? 1 : -1
            let offset = sign * (hours * 3_600_000 + minutes * 60_000)
            // The local time at that offset, written as UTC and then given the offset instead of `Z`.
            let local = RFC3339.format(instant.adding(milliseconds: offset)).dropLast()
            guard !local.hasPrefix("+"), !local.hasPrefix("-") else { continue }
            let two = { (value: Int64) in value < 10 ? "0\(value)" : "\(value)" }
            let colon = Bool.random(using: &rng) ? ":" : ""
            let text = "\(local)\(sign > 0 ? "+" : "-")\(two(hours))\(colon)\(two(minutes))"
            #expect(RFC3339.parse(text) == instant, "\(text)")
        }
    }

    @Test func mangledTextIsRefusedOrReadNeverTrapping() {
        var rng = SplitMix64(seed: 0x3339_0005)
        let alphabet = Array("0123456789-+:.TtZz \u{0}x9".utf8)
        for _ in 0..<20_000 {
            let instant = Instant(millisecondsSince1970: Int64.random(in: Self.year1..<Self.year10000, using: &rng))
            var bytes = Array(RFC3339.format(instant).utf8)
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                let position = Int.random(in: 0..<bytes.count, using: &rng)
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: bytes[position] = alphabet.randomElement(using: &rng)!
                case 1: bytes.insert(alphabet.randomElement(using: &rng)!, at: position)
                default: if bytes.count > 1 { bytes.remove(at: position) }
                }
            }
            // Whatever is read formats again (so its fields were real), and nothing traps.
            if let read = RFC3339.parse(String(decoding: bytes, as: UTF8.self)) {
                #expect(RFC3339.parse(RFC3339.format(read)) == read)
            }
        }
    }
}
