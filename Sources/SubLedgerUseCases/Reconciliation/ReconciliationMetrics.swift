import Metrics

/// The reconciliation poller's metric: `subledger_reconciliation_passes_total{store,outcome}`, passes of each
/// store's reconciliation, `ok` or `failed` (a pass that could not run at all; an app that failed within a pass is
/// counted by the store's own metrics).
enum ReconciliationMetrics {
    static func pass(store: String, failed: Bool) {
        Counter(
            label: "subledger_reconciliation_passes_total",
            dimensions: [("store", store), ("outcome", failed ? "failed" : "ok")]
        ).increment()
    }
}
