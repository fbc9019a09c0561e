import Metrics
import SubLedgerCore
import SubLedgerStore

/// What the webhook deliverers export (docs/guides/webhooks.md, "Metrics and the admin page"):
///
/// - `subledger_webhook_deliveries_total{result}`: attempts by what they came to: `delivered`, `retrying` (failed,
///   tried again later), `failed` (failed for the last time), `lease_lost` (sent after this process's lease ran
///   out; another deliverer owns the delivery now).
/// - `subledger_webhook_delivery_latency_seconds`: from the event's creation to its delivery (histogram).
/// - `subledger_webhook_queue_depth`: pending deliveries of active endpoints (database-wide: every process
///   reports the same value).
/// - `subledger_webhook_oldest_pending_age_seconds`: age of the oldest event still waiting for an active endpoint.
/// - `subledger_webhook_endpoints_paused_total`: endpoints this process paused as `failing`.
enum WebhookMetrics {
    static func record(_ outcome: WebhookDeliveryStore.Outcome) {
        Counter(label: "subledger_webhook_deliveries_total", dimensions: [("result", outcome.rawValue)]).increment()
    }

    static func delivered(eventCreatedAt: Instant, now: Instant) {
        let milliseconds = max(0, now.millisecondsSince1970 - eventCreatedAt.millisecondsSince1970)
        Timer(label: "subledger_webhook_delivery_latency_seconds").recordNanoseconds(milliseconds * 1_000_000)
    }

    static func queue(_ status: WebhookDeliveryStore.QueueStatus, now: Instant) {
        Gauge(label: "subledger_webhook_queue_depth").record(status.pending)
        let age = status.oldestEventCreatedAt.map { max(0, now.millisecondsSince1970 - $0.millisecondsSince1970) } ?? 0
        Gauge(label: "subledger_webhook_oldest_pending_age_seconds").record(Double(age) / 1000)
    }

    static func paused(count: Int) {
        guard count > 0 else { return }
        Counter(label: "subledger_webhook_endpoints_paused_total").increment(by: count)
    }
}
