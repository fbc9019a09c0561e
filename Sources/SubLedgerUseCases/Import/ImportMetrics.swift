import Metrics

/// Counts the importer's waits on Apple: `subledger_import_backoffs_total{reason="rate_limited"|"retryable"}`.
package enum ImportMetrics {
    package static func recordBackoff(rateLimited: Bool) {
        Counter(
            label: "subledger_import_backoffs_total",
            dimensions: [("reason", rateLimited ? "rate_limited" : "retryable")]
        )
        .increment()
    }
}
