import SubLedgerCore

/// Converts milli-unit amounts into the reporting currency with the nearest earlier exchange rate, and
/// remembers every currency it had no rate for.
struct CurrencyConverter {
    let reportingCurrency: String
    let schedules: [String: EffectiveSchedule<Double>]
    private(set) var missing: [String: Int64] = [:]

    init(reportingCurrency: String, schedules: [String: EffectiveSchedule<Double>]) {
        self.reportingCurrency = reportingCurrency
        self.schedules = schedules
    }

    /// `amount` of `currency` on `day` in the reporting currency (rounded to the milli-unit), or `nil` when
    /// no rate is known then (recorded in `missing`).
    mutating func convert(_ amount: Int64, from currency: String, on day: Int64) -> Int64? {
        if currency == reportingCurrency { return amount }
        guard let rate = schedules[currency]?.value(on: day) else {
            missing[currency] = min(missing[currency] ?? day, day)
            return nil
        }
        return Int64((Double(amount) * rate).rounded())
    }

    var missingRates: [MissingRate] {
        missing.map { MissingRate(currency: $0.key, day: CalendarDay.text($0.value)) }.sorted {
            $0.currency < $1.currency
        }
    }
}
