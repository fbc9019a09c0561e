import Metrics
import SubLedgerCore
import SubLedgerStore

/// The counters and histograms the monitoring kit (deploy/monitoring) reads, made when a process starts with every
/// label set known in advance, so that a fresh process exports them at 0.
///
/// swift-metrics exports a metric from when it is first made, and SubLedger makes most of them where they are
/// first recorded: without this, a fresh deployment's panels stayed empty until each event first happened, and
/// `increase()` could not see that first event (a series has no sample before it). Label sets that depend on the
/// deployment are left to their first record: an app's recovery cursor lag (`app`, `environment`) and a read
/// replica's lag (made for each standby when the replicas are configured).
public enum MetricDeclarations {
    /// What every process that exports metrics may record: the ledger's applies and entries, stored inputs given up
    /// on, store obligations (sent by `serve` and `poll`) and webhook deliveries. Made by `ServiceMetrics.bootstrap()`;
    /// each store's own metrics (the App Store's calls to Apple, its consumption answers) are made by its
    /// registration (`StoreRegistry.declareMetrics`) when the process builds its gateways.
    static func declareShared() {
        _ = Counter(label: "subledger_ledger_applies_total")
        for kind in LedgerEntry.Kind.allCases {
            _ = Counter(label: "subledger_ledger_entries_total", dimensions: [("kind", kind.metricName)])
        }
        _ = Counter(label: "subledger_ledger_entries_repeated_total")
        for kind in StoredInputMetrics.kinds {
            _ = Counter(label: "subledger_stored_inputs_quarantined_total", dimensions: [("kind", kind)])
        }
        for kind in StoreObligation.Kind.allCases {
            for outcome in StoreObligationSender.outcomeNames {
                _ = Counter(
                    label: "subledger_store_obligations_total",
                    dimensions: [("store", kind.store.rawValue), ("kind", kind.rawValue), ("outcome", outcome)])
            }
        }
        for outcome in WebhookDeliveryStore.Outcome.allCases {
            _ = Counter(label: "subledger_webhook_deliveries_total", dimensions: [("result", outcome.rawValue)])
        }
        _ = Timer(label: "subledger_webhook_delivery_latency_seconds")
        _ = Counter(label: "subledger_webhook_endpoints_paused_total")
    }

    /// What only `poll` records: the renewal job's items, Google Play's voided
    /// purchases, Stripe's events list and each store's reconciliation passes. (`subledger_poll_cycles_total` is
    /// not made here: the first cycle makes it, and a process that never finishes one must not export it, which
    /// `SubLedgerPollCycleLate` reads as no poller.)
    public static func declarePoll() {
        for result in RenewalPoller.CycleReport.resultNames {
            _ = Counter(label: "subledger_poll_items_total", dimensions: [("result", result)])
        }
        for outcome in ["ok", "failed"] {
            _ = Counter(label: "subledger_google_play_voided_polls_total", dimensions: [("outcome", outcome)])
            _ = Counter(label: "subledger_stripe_event_reads_total", dimensions: [("outcome", outcome)])
            for store in Store.allCases {
                _ = Counter(
                    label: "subledger_reconciliation_passes_total",
                    dimensions: [("store", store.rawValue), ("outcome", outcome)])
            }
        }
        for result in ["listed", "revoked"] {
            _ = Counter(label: "subledger_google_play_voided_purchases_total", dimensions: [("result", result)])
        }
    }
}
