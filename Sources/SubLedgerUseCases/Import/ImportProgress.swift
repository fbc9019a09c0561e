/// Where an import stands; handed to the progress callback after every row.
public struct ImportProgress: Sendable, Hashable {
    /// Data rows in the file.
    public var totalRows: Int
    /// Rows imported by this run.
    public var rowsOK = 0
    /// Rows already done by an earlier run (skipped).
    public var rowsSkipped = 0
    /// Rows refused or failed (each has a line number and a reason in `ImportSummary.failures`).
    public var rowsFailed = 0
    /// Chains applied by this run.
    public var chains = 0
    /// Transactions applied by this run.
    public var transactions = 0
    /// Seconds since the run started.
    public var elapsedSeconds: Double = 0

    public init(totalRows: Int) {
        self.totalRows = totalRows
    }

    /// Rows accounted for so far.
    public var rowsDone: Int { rowsOK + rowsSkipped + rowsFailed }

    /// Rows per second handled by this run (skipped rows excluded).
    public var rate: Double {
        elapsedSeconds > 0 ? Double(rowsOK + rowsFailed) / elapsedSeconds : 0
    }

    /// Seconds left at the current rate, or `nil` before a rate is known.
    public var etaSeconds: Double? {
        guard rate > 0 else { return nil }
        return Double(totalRows - rowsDone) / rate
    }
}
