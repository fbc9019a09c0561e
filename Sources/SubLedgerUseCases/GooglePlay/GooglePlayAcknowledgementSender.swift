import GooglePlay
import GooglePlayClients
import Logging
import Metrics
import ServiceLifecycle
import SubLedgerCore
import SubLedgerStore

/// Sends what applies owed Google Play (`google_play_acknowledgements`, schema step 38): the acknowledgement of
/// each purchase token credited to an account, or the consumption of a consumable's. Part of `serve` and `poll`,
/// safe with any number of processes (rows are leased with `FOR UPDATE SKIP LOCKED`).
///
/// Each row was recorded in the transaction of the apply that credited the purchase, so a purchase is acknowledged
/// only once its credit is durable, and one whose process died before acknowledging it is acknowledged by the next
/// cycle of any process, well within Google's three days. Failures are retried with backoff (5xx, 429, timeouts,
/// refused or missing credentials, which the operator can fix); Google's other 4xx refusals are final. Every outcome
/// is counted in `subledger_google_play_acknowledgements_total{kind,outcome}` and kept on the row.
public struct GooglePlayAcknowledgementSender: Service {
    /// How the sender runs.
    public struct Configuration: Sendable {
        /// Acknowledgements claimed per batch. Default 100.
        public var batchSize = 100
        /// How long a claimed row stays leased to this process. Default 5 minutes.
        public var lease: Duration = .seconds(300)
        /// Pause between cycles when looping. Default 5 s.
        public var interval: Duration = .seconds(5)
        /// The first retry's delay; it doubles per attempt. Default 30 s.
        public var retryBase: Duration = .seconds(30)
        /// The longest delay between retries. Default 30 minutes (Google's deadline is three days).
        public var retryMaximum: Duration = .seconds(1_800)
        /// Run one cycle and return (for cron, `poll --once`).
        public var once = false
        /// This process's name in leases.
        public var worker: String

        public init(worker: String) {
            self.worker = worker
        }
    }

    /// What one cycle did.
    public struct CycleReport: Sendable, Hashable, CustomStringConvertible {
        public var sent = 0
        public var retrying = 0
        public var failed = 0

        public init() {}

        public var description: String {
            "google play acknowledgements sent \(sent), retrying \(retrying), failed \(failed)"
        }
    }

    let configuration: Configuration
    let store: GooglePlayStore
    let catalog: CatalogStore
    let gateway: GooglePlayGateway
    let logger: Logger
    let now: @Sendable () -> Instant

    public init(
        configuration: Configuration, store: GooglePlayStore, catalog: CatalogStore, gateway: GooglePlayGateway,
        logger: Logger, now: @escaping @Sendable () -> Instant
    ) {
        self.configuration = configuration
        self.store = store
        self.catalog = catalog
        self.gateway = gateway
        self.logger = logger
        self.now = now
    }

    public func run() async throws {
        try await PeriodicCycles.run(
            once: configuration.once, interval: configuration.interval, logger: logger,
            failure: "google play acknowledgement cycle failed"
        ) {
            let report = try await runCycle()
            if report != CycleReport() { logger.info("google play acknowledgement cycle: \(report)") }
        }
        try? await store.releaseAll(worker: configuration.worker)
    }

    /// Sends every acknowledgement due now, oldest first.
    public func runCycle() async throws -> CycleReport {
        var report = CycleReport()
        try await LeasedQueue.drain {
            try await store.claimDue(
                limit: configuration.batchSize, lease: configuration.lease, worker: configuration.worker, now: now())
        } handle: { due in
            let outcome = await send(due)
            try await store.finish(due, outcome, worker: configuration.worker, now: now())
            let name: String
            switch outcome {
            case .sent:
                name = "sent"
                report.sent += 1
            case .retry(_, _, let detail):
                name = "retry"
                report.retrying += 1
                logger.warning(
                    "google play acknowledgement not sent yet",
                    metadata: ["acknowledgement": "\(due.id)", "kind": "\(due.kind.rawValue)", "detail": "\(detail)"])
            case .failed(_, let detail):
                name = "failed"
                report.failed += 1
                logger.error(
                    "google play acknowledgement refused",
                    metadata: ["acknowledgement": "\(due.id)", "kind": "\(due.kind.rawValue)", "detail": "\(detail)"])
            }
            Counter(
                label: "subledger_google_play_acknowledgements_total",
                dimensions: [("kind", due.kind.rawValue), ("outcome", name)]
            ).increment()
        }
        return report
    }

    /// Calls Google once for `due`; never throws (a failure is an outcome).
    func send(_ due: GooglePlayStore.DueAcknowledgement) async -> GooglePlayStore.Outcome {
        let instant = now()
        let app: StoredApp
        do {
            guard let found = try await catalog.app(bundleID: due.bundleID) else {
                return .failed(httpStatus: nil, detail: "unknown_app: the app is no longer configured")
            }
            app = found
        } catch {
            return retry(due, at: instant, detail: "database: \(error)")
        }
        let client: GooglePlayDeveloperAPI
        let packageName: String
        do {
            (client, packageName) = try await gateway.client(for: app)
        } catch {
            return retry(due, at: instant, detail: "\(error)")
        }
        do {
            switch due.kind {
            case .acknowledgeSubscription:
                try await client.acknowledgeSubscription(
                    packageName: packageName, subscriptionId: due.productID, token: due.purchaseToken)
            case .acknowledgeProduct:
                try await client.acknowledgeProduct(
                    packageName: packageName, productId: due.productID, token: due.purchaseToken)
            case .consumeProduct:
                try await client.consumeProduct(
                    packageName: packageName, productId: due.productID, token: due.purchaseToken)
            }
            return .sent
        } catch {
            switch error.code {
            case _ where error.isRetryable,
                .unauthorized, .permissionDenied, .invalidGrant, .tokenExchangeRefused, .malformedResponse:
                var after: Instant?
                if let seconds = error.retryAfterSeconds, seconds > 0 {
                    after = instant.adding(milliseconds: min(seconds, 86_400) * 1000)
                }
                return retry(due, at: instant, httpStatus: error.httpStatus, detail: "\(error)", after: after)
            default:
                return .failed(httpStatus: error.httpStatus, detail: "\(error) \(error.message ?? "")")
            }
        }
    }

    /// A transient failure, tried again after the backoff of the row's attempts (or Google's `Retry-After`).
    private func retry(
        _ due: GooglePlayStore.DueAcknowledgement, at instant: Instant, httpStatus: Int? = nil, detail: String,
        after retryAfter: Instant? = nil
    ) -> GooglePlayStore.Outcome {
        let base = Int64(configuration.retryBase.components.seconds) * 1000
        let maximum = Int64(configuration.retryMaximum.components.seconds) * 1000
        let delay = min(maximum, base.saturatingMultiplied(by: Int64(1) << Int64(min(due.attempts, 20))))
        var next = instant.adding(milliseconds: delay)
        if let retryAfter, retryAfter > next { next = retryAfter }
        return .retry(nextAttempt: next, httpStatus: httpStatus, detail: detail)
    }
}
