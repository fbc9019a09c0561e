import GooglePlaySimulator
import SubLedgerCore
import Testing

@Suite struct BillingPeriodTests {
    func end(_ period: BillingPeriod, after text: String) -> String? {
        RFC3339.parse(text).map { RFC3339.format(period.end(after: $0), precision: .seconds) }
    }

    @Test func periodsAreCalendarPeriodsInUTC() {
        #expect(end(.oneWeek, after: "2025-01-29T10:00:00Z") == "2025-02-05T10:00:00Z")
        #expect(end(.oneMonth, after: "2025-01-15T10:00:00Z") == "2025-02-15T10:00:00Z")
        #expect(end(.threeMonths, after: "2025-11-30T00:00:00Z") == "2026-02-28T00:00:00Z")
        #expect(end(.sixMonths, after: "2025-03-31T23:59:59Z") == "2025-09-30T23:59:59Z")
        #expect(end(.oneYear, after: "2024-02-29T12:00:00Z") == "2025-02-28T12:00:00Z")
    }

    @Test func aMonthFromTheThirtyFirstEndsOnTheMonthsLastDay() {
        #expect(end(.oneMonth, after: "2025-01-31T00:00:00Z") == "2025-02-28T00:00:00Z")
        #expect(end(.oneMonth, after: "2024-01-31T00:00:00Z") == "2024-02-29T00:00:00Z")
    }
}
