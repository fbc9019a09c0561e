/// Google's `Money`: a currency and an amount as whole `units` (int64, written as a string) plus `nanos`
/// (billionths, same sign as `units`), as in `AutoRenewingPlan.recurringPrice`.
///
/// Conversions never trap: an amount outside what micros can hold, or `nanos` outside ±999,999,999 or of
/// the other sign, is `nil` rather than a crash, because every field comes from outside.
public struct Money: Codable, Hashable, Sendable {
    /// ISO 4217 code, e.g. `USD`.
    public var currencyCode: String?
    /// Whole units, as Google writes int64: text.
    public var units: String?
    /// Billionths of a unit, -999,999,999 to 999,999,999, with the sign of `units`.
    public var nanos: Int32?

    /// Creates a value with the wire's fields.
    public init(currencyCode: String?, units: String?, nanos: Int32?) {
        self.currencyCode = currencyCode
        self.units = units
        self.nanos = nanos
    }

    /// The amount of `micros` millionths (Google's `priceAmountMicros`) in `currencyCode`.
    public init(currencyCode: String, micros: Int64) {
        self.currencyCode = currencyCode
        // Division and remainder by a positive constant cannot overflow; the remainder times 1000 stays below 10^9.
        self.units = String(micros / 1_000_000)
        let remainder = micros % 1_000_000
        self.nanos = remainder == 0 ? nil : Int32(remainder * 1000)
    }

    /// The amount in micros (millionths of a unit), or `nil` when the fields are not a valid amount or it does
    /// not fit `Int64`. Nanos below a micro are dropped toward zero.
    public var micros: Int64? {
        let whole: Int64
        if let units {
            guard let parsed = GoogleInt64.parse(units) else { return nil }
            whole = parsed
        } else {
            whole = 0
        }
        let fraction = Int64(nanos ?? 0)
        guard fraction > -1_000_000_000, fraction < 1_000_000_000 else { return nil }
        guard whole == 0 || fraction == 0 || (whole > 0) == (fraction > 0) else { return nil }
        let (scaled, overflow) = whole.multipliedReportingOverflow(by: 1_000_000)
        guard !overflow else { return nil }
        let (sum, overflowSum) = scaled.addingReportingOverflow(fraction / 1000)
        return overflowSum ? nil : sum
    }

    /// The amount in milli-units, SubLedger's unit for prices (`PricePoint.priceMilliunits`), rounded half away
    /// from zero; `nil` as for `micros`.
    public var milliunits: Int64? { micros.map(Self.milliunits(fromMicros:)) }

    /// Micros to milli-units, rounded half away from zero (never traps).
    public static func milliunits(fromMicros micros: Int64) -> Int64 {
        let quotient = micros / 1000
        let remainder = micros % 1000
        if remainder >= 500 { return quotient + 1 }
        if remainder <= -500 { return quotient - 1 }
        return quotient
    }
}
