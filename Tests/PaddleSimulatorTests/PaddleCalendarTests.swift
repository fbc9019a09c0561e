import Testing

@testable import PaddleSimulator

@Suite struct PaddleCalendarTests {
    @Test func writesDatesAsPaddleDoes() {
        #expect(PaddleCalendar.format(1_735_689_600) == "2025-01-01T00:00:00.000000Z")
        #expect(PaddleCalendar.format(951_827_696) == "2000-02-29T12:34:56.000000Z")
    }

    @Test func readsWhatItWritesAndRefusesTheRest() {
        for seconds: Int64 in [0, 951_827_696, 1_735_689_600, PaddleCalendar.latest] {
            #expect(PaddleCalendar.parse(PaddleCalendar.format(seconds)) == seconds)
        }
        #expect(PaddleCalendar.parse("2025-01-01T00:00:00Z") == 1_735_689_600)
        #expect(PaddleCalendar.parse("2025-01-01T00:00:00+00:00") == 1_735_689_600)
        for bad in [
            "", "2025-02-30T00:00:00Z", "2025-13-01T00:00:00Z", "2025-01-01T24:00:00Z", "2025-01-01 00:00:00",
            "2025-01-01T00:00:00+02:00", "２０２５-01-01T00:00:00Z",
        ] {
            #expect(PaddleCalendar.parse(bad) == nil, "\(bad)")
        }
    }

    @Test func aMonthLaterKeepsTheDayOrTakesTheMonthsLastDay() throws {
        let january31 = try #require(PaddleCalendar.parse("2025-01-31T10:00:00Z"))
        #expect(
            PaddleCalendar.adding(.month, 1, to: january31).map(PaddleCalendar.format) == "2025-02-28T10:00:00.000000Z")
        let leap = try #require(PaddleCalendar.parse("2024-01-31T00:00:00Z"))
        #expect(PaddleCalendar.adding(.month, 1, to: leap).map(PaddleCalendar.format) == "2024-02-29T00:00:00.000000Z")
        #expect(PaddleCalendar.adding(.year, 1, to: leap).map(PaddleCalendar.format) == "2025-01-31T00:00:00.000000Z")
        #expect(PaddleCalendar.adding(.week, 2, to: leap).map(PaddleCalendar.format) == "2024-02-14T00:00:00.000000Z")
        #expect(PaddleCalendar.adding(.day, 0, to: leap) == nil)
        #expect(PaddleCalendar.adding(.year, 1, to: PaddleCalendar.latest) == nil)
    }
}
