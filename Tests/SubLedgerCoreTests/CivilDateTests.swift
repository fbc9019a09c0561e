import SubLedgerCore
import Testing

@Suite struct CivilDateTests {
    @Test(arguments: [
        (Int64(1970), Int64(1), Int64(1), Int64(0)),
        (2000, 2, 29, 11_016),
        (2026, 11, 22, 20_779),
        (1969, 12, 31, -1),
        (9999, 12, 31, 2_932_896),
    ])
    func knownDatesHaveTheirDayNumbers(year: Int64, month: Int64, day: Int64, days: Int64) {
        #expect(CivilDate.days(year: year, month: month, day: day) == days)
        let date = CivilDate.date(days: days)
        #expect(date.year == year && date.month == month && date.day == day)
    }

    @Test func everyDayFromBeforeTheEpochToYear9999RoundTrips() {
        var previous: (year: Int64, month: Int64, day: Int64)?
        for days in stride(from: Int64(-1_000), through: 2_932_896, by: 1) {
            let date = CivilDate.date(days: days)
            #expect(CivilDate.days(year: date.year, month: date.month, day: date.day) == days)
            if let previous {
                // Consecutive day numbers are consecutive dates.
                let next =
                    previous.day + 1 == date.day && previous.month == date.month
                    || date.day == 1 && (previous.month + 1 == date.month || previous.month == 12 && date.month == 1)
                if !next {
                    Issue.record("\(previous) then \(date)")
                    return
                }
            }
            previous = date
        }
    }
}
