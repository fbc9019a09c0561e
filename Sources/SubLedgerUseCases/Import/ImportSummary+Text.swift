import Foundation

extension ImportSummary {
    /// The most failures listed in the text; the rest are counted.
    static let listedFailures = 100

    /// The summary printed at the end of `subledger import`.
    public var text: String {
        var lines: [String] = []
        if dryRun {
            lines.append("dry run: nothing was written and Apple was not called")
            lines += plan
        }
        for failure in failures.prefix(Self.listedFailures) { lines.append(failure.description) }
        if failures.count > Self.listedFailures {
            lines.append("... and \(failures.count - Self.listedFailures) more failed rows (table import_rows)")
        }
        let p = progress
        lines.append(
            "rows: \(p.totalRows) in file, \(p.rowsOK) ok, \(p.rowsSkipped) skipped (done before), \(p.rowsFailed) failed"
        )
        if !dryRun {
            lines.append("chains: \(p.chains), transactions: \(p.transactions)")
            lines.append(
                "time: \(String(format: "%.1f", p.elapsedSeconds)) s, rate: \(String(format: "%.1f", p.rate)) rows/s")
        }
        if interrupted {
            lines.append("interrupted: run the same command again to resume (finished rows are skipped)")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
