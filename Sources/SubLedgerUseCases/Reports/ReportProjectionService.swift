import Logging
import Metrics
import PostgresLibPQ
import ServiceLifecycle
import SubLedgerCore
import SubLedgerReports

/// Runs the report projector (`ReportProjector`) in `subledger poll`: projects every change due, then waits for the
/// next cycle. Any number of pollers run one each; they share the queue (`FOR UPDATE SKIP LOCKED`). After each
/// cycle it records how far behind the reports are: `subledger_report_projection_lag_seconds` (the oldest change
/// still queued, 0 when none) and `subledger_report_projection_queue_depth` (changes queued).
public struct ReportProjectionService: Service {
    /// How the service runs.
    public struct Configuration: Sendable {
        /// Queue rows per batch (one transaction). Default 500.
        public var batchSize = 500
        /// Pause between cycles when the queue is empty. Default 1 s: the reports' lag under a steady load is
        /// about this plus one batch.
        public var interval: Duration = .seconds(1)
        /// Run one cycle when the group stops, and return (`poll --once`): everything queued by then is projected.
        public var once = false

        public init() {}
    }

    let configuration: Configuration
    let projector: ReportProjector
    let pool: PostgresPool
    let logger: Logger
    let now: @Sendable () -> Instant

    public init(
        configuration: Configuration, pool: PostgresPool, logger: Logger, now: @escaping @Sendable () -> Instant
    ) {
        self.configuration = configuration
        self.projector = ReportProjector(pool: pool, batchSize: configuration.batchSize)
        self.pool = pool
        self.logger = logger
        self.now = now
    }

    public func run() async throws {
        if configuration.once {
            // `poll --once`: the run's other passes apply inputs until the group stops them; this one is stopped
            // after them (`SubLedgerServer.poll` places it so) and projects what they, and everything before, queued.
            do { try await gracefulShutdown() } catch { return }
            let progress = try await runCycle()
            logger.info("\(progress)")
            return
        }
        // A failed batch rolled back: its rows stay queued for the next cycle.
        try await PeriodicCycles.run(
            once: false, interval: configuration.interval, logger: logger, failure: "report projection failed"
        ) {
            let progress = try await runCycle()
            if progress.changes > 0 { logger.debug("\(progress)") }
        }
    }

    /// Projects until the queue has nothing this process can claim, then records the lag.
    public func runCycle() async throws -> ReportProjector.Progress {
        let progress = try await projector.projectAll()
        let instant = now()
        let freshness = try await pool.withConnection { connection in
            try ReportFreshness.read(scope: .everything, now: instant, on: connection)
        }
        ReportProjectionMetrics.record(freshness, now: instant)
        return progress
    }
}

/// The report projection's gauges, recorded by `ReportProjectionService` after each cycle.
enum ReportProjectionMetrics {
    static func record(_ freshness: ReportFreshness, now: Instant) {
        Gauge(label: "subledger_report_projection_lag_seconds").record(freshness.lag(at: now))
        Gauge(label: "subledger_report_projection_queue_depth").record(freshness.pendingChanges)
    }
}
