extension Int64 {
    /// `self + other`, held at `Int64.min` / `Int64.max` instead of trapping on overflow.
    ///
    /// For arithmetic whose operands may come from outside (Apple's quantities and dates, catalog
    /// durations): a wrong answer at an absurd extreme is recoverable, a trap ends the process.
    public func saturatingAdding(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        guard overflow else { return sum }
        return other < 0 ? .min : .max
    }

    /// `self * other`, held at `Int64.min` / `Int64.max` instead of trapping on overflow.
    public func saturatingMultiplied(by other: Int64) -> Int64 {
        let (product, overflow) = multipliedReportingOverflow(by: other)
        guard overflow else { return product }
        return (self < 0) != (other < 0) ? .min : .max
    }

    /// `self`, or `-Int64.max` for `Int64.min`, so that it can be negated without trapping.
    var clampedAboveMinimum: Int64 { self == .min ? -.max : self }
}
