/// What an import did, printed at its end.
public struct ImportSummary: Sendable {
    /// The final counts.
    public var progress: ImportProgress
    /// Every row that was refused or failed, by line number.
    public var failures: [ImportRowError]
    /// For `--dry-run`: one line per row saying what would happen; empty otherwise.
    public var plan: [String]
    /// Whether the run stopped before every row was handled (cancelled or `stopAfterRows`).
    public var interrupted: Bool
    public var dryRun: Bool
}
