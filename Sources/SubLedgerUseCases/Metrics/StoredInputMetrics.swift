import Metrics

/// Counts stored inputs given up on: `subledger_stored_inputs_quarantined_total{kind}` (`receipt`,
/// `notification`). Any increase wants a look at the `quarantined` report.
public enum StoredInputMetrics {
    /// The `kind` label's values (`MetricDeclarations`).
    static let kinds = ["receipt", "notification"]

    public static func quarantined(_ kind: String, count: Int = 1) {
        guard count > 0 else { return }
        Counter(label: "subledger_stored_inputs_quarantined_total", dimensions: [("kind", kind)]).increment(by: count)
    }

    /// The submissions waiting only for their store to answer again (`subledger_stored_inputs_deferred`).
    public static func deferred(_ count: Int) {
        Gauge(label: "subledger_stored_inputs_deferred").record(count)
    }
}
