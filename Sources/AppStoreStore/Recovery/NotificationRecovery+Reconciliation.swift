import SubLedgerCore
import SubLedgerUseCases

/// The App Store's reconciliation: every app and environment's notification history, from its cursor to now.
extension NotificationRecovery: StoreReconciliation {
    public var store: Store { .appStore }

    public var interval: Duration { configuration.interval }

    /// One recovery of every app and environment (a unit that fails is in the report, never thrown). Every pass is
    /// logged: it runs hourly, and its report says where each history is complete.
    public func reconcile() async throws -> ReconciliationOutcome {
        let report = try await run()
        return ReconciliationOutcome(summary: "notification recovery: \(report)", isWorthLogging: true)
    }
}
