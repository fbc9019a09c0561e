import Metrics

/// `subledger_reads_total{target, reason}`: the routed reads, by who answered and why; and
/// `subledger_replica_lag_seconds{replica}`: each standby's measured lag (-1 while unknown: not measured yet,
/// unreachable since the start, or not a standby).
struct ReadMetrics: Sendable {
    /// Why a read went where it went (the `reason` label).
    enum Reason: String, Sendable, CaseIterable {
        /// Replica: its lag is within the bound.
        case withinLagBound = "within_lag_bound"
        /// Replica: it has replayed the read's consistency token (and is within the bound).
        case tokenReplayed = "token_replayed"
        /// Primary: no standby is within the bound (lagging, paused, unreachable or not a standby).
        case replicaLagging = "replica_lagging"
        /// Primary: no standby within the bound replayed the read's token in the time allowed.
        case tokenNotReplayed = "token_not_replayed"
        /// Primary: the standby chosen failed the read (connection lost, a conflict with recovery).
        case replicaFailed = "replica_failed"

        var target: String {
            switch self {
            case .withinLagBound, .tokenReplayed: "replica"
            case .replicaLagging, .tokenNotReplayed, .replicaFailed: "primary"
            }
        }
    }

    private let reads: [Reason: Counter]
    private let lag: [Gauge]

    /// Call `ServiceMetrics.bootstrap()` first, or the metrics stay on the no-op backend.
    init(standbyLabels: [String]) {
        var reads: [Reason: Counter] = [:]
        for reason in Reason.allCases {
            reads[reason] = Counter(
                label: "subledger_reads_total", dimensions: [("target", reason.target), ("reason", reason.rawValue)])
        }
        self.reads = reads
        lag = standbyLabels.map { Gauge(label: "subledger_replica_lag_seconds", dimensions: [("replica", $0)]) }
    }

    func count(_ reason: Reason) {
        reads[reason]?.increment()
    }

    func recordLag(_ lag: Duration?, of index: Int) {
        guard let lag else {
            self.lag[index].record(-1)
            return
        }
        let (seconds, attoseconds) = lag.components
        self.lag[index].record(Double(seconds) + Double(attoseconds) / 1e18)
    }
}
