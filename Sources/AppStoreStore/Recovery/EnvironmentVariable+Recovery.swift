import SubLedgerUseCases

extension EnvironmentVariable {
    /// Seconds between runs of the notification recovery in `subledger poll` (default 3600); 0 turns it off.
    public static let recoveryInterval = "SUBLEDGER_RECOVERY_INTERVAL_SECONDS"
    /// Seconds before its cursor each recovery starts again, for notifications Apple lists late (default 3600).
    public static let recoveryMargin = "SUBLEDGER_RECOVERY_MARGIN_SECONDS"
}
