import Metrics
import SubLedgerCore
import SubLedgerUseCases

/// The recovery's metrics:
/// - `subledger_recovery_notifications_total{result}`: notifications read back from Apple's history,
///   `applied` (newly applied: they had been missed), `already_had` (a no-op), `rejected` (authentic but can
///   never apply; logged with its UUID) or `deferred` (stored, applying failed: the renewal job retries it);
/// - `subledger_recovery_runs_total{result}`: runs per app and environment, `complete`, `partial`, `failed`,
///   `skipped` (no Server API credentials) or `busy` (another process holds the cursor);
/// - `subledger_recovery_cursor_lag_seconds{app,environment}`: how far behind now the complete history ends.
enum RecoveryMetrics {
    /// The `result` label's values of `subledger_recovery_notifications_total` (`MetricDeclarations`).
    static let notificationResults = ["applied", "already_had", "rejected", "deferred"]

    static func notifications(_ result: String, count: Int) {
        guard count > 0 else { return }
        Counter(label: "subledger_recovery_notifications_total", dimensions: [("result", result)]).increment(by: count)
    }

    static func run(_ result: RecoveryReport.Result) {
        Counter(label: "subledger_recovery_runs_total", dimensions: [("result", result.rawValue)]).increment()
    }

    static func lag(bundleID: String, environment: StoreEnvironment, completeUntil: Instant?, now: Instant) {
        guard let completeUntil else { return }
        let seconds = max(0, Double(now.millisecondsSince1970 - completeUntil.millisecondsSince1970) / 1000)
        Gauge(
            label: "subledger_recovery_cursor_lag_seconds",
            dimensions: [("app", bundleID), ("environment", environment.rawValue)]
        ).record(seconds)
    }
}
