import Logging
import Metrics
import ServiceLifecycle
import SubLedgerCore
import SubLedgerStore

/// Sends what committed applies owe the stores (`store_obligations`, schema steps 43 and 49), whatever the store: Set
/// App Account Token, Finish Transaction and the answers to consumption requests to Apple, each credited Google
/// Play purchase acknowledged or consumed. Part
/// of every `serve` and `poll` process, safe with any number of them: an obligation is claimed with
/// `FOR UPDATE SKIP LOCKED` under a lease, and its outcome recorded only while this process still holds it.
///
/// Each obligation was recorded in the transaction of the apply that decided it, so it is sent exactly when its
/// cause committed, and one whose process died before sending it is sent by the next cycle of any process once its
/// lease ran out. The store's adapter (`ObligationSending`) makes the call; a transient failure is retried under the
/// one `ObligationRetryPolicy`, a refusal is final. Every outcome is counted in
/// `subledger_store_obligations_total{store,kind,outcome}` and kept on the row (the admin page's counts).
public struct StoreObligationSender: Service {
    /// The `outcome` label's values of `subledger_store_obligations_total` (`MetricDeclarations`).
    static let outcomeNames = ["sent", "skipped", "retry", "failed"]

    /// How the sender runs.
    public struct Configuration: Sendable {
        /// Obligations claimed per batch. Default 100.
        public var batchSize = 100
        /// How long a claimed obligation stays leased to this process. Default 5 minutes, far longer than a call
        /// to a store takes (their clients time out first), so no other process claims one while it is sent.
        public var lease: Duration = .seconds(300)
        /// Pause between cycles when looping. Default 5 s.
        public var interval: Duration = .seconds(5)
        /// When a transient failure is tried again.
        public var retry = ObligationRetryPolicy()
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
        /// Done without a call: nothing was owed after all (a consumption answer without consent or policy).
        public var skipped = 0
        public var retrying = 0
        public var failed = 0

        /// Nothing done.
        public init() {}

        public var description: String {
            "store obligations sent \(sent), skipped \(skipped), retrying \(retrying), failed \(failed)"
        }
    }

    let configuration: Configuration
    let store: StoreObligationStore
    /// The apps the obligations are for.
    let catalog: CatalogStore
    /// Each store's adapter.
    let senders: [Store: any ObligationSending]
    let logger: Logger
    let now: @Sendable () -> Instant

    /// A sender of the obligations of the stores `senders` send (one adapter per store; one of a store without an
    /// adapter here waits for a process that has one).
    public init(
        configuration: Configuration, store: StoreObligationStore, catalog: CatalogStore,
        senders: [any ObligationSending], logger: Logger, now: @escaping @Sendable () -> Instant
    ) {
        self.configuration = configuration
        self.store = store
        self.catalog = catalog
        self.senders = Dictionary(senders.map { ($0.store, $0) }, uniquingKeysWith: { first, _ in first })
        self.logger = logger
        self.now = now
    }

    public func run() async throws {
        try await PeriodicCycles.run(
            once: configuration.once, interval: configuration.interval, logger: logger,
            failure: "store obligation cycle failed"
        ) {
            let report = try await runCycle()
            if report != CycleReport() { logger.info("store obligation cycle: \(report)") }
        }
        try? await store.releaseAll(worker: configuration.worker)
    }

    /// Sends every obligation due now, oldest first.
    public func runCycle() async throws -> CycleReport {
        var report = CycleReport()
        try await LeasedQueue.drain {
            try await store.claimDue(
                limit: configuration.batchSize, lease: configuration.lease, worker: configuration.worker, now: now())
        } handle: { due in
            let outcome = await send(due)
            try await store.finish(due, outcome, worker: configuration.worker, now: now())
            let name: String
            var unsent: (level: Logger.Level, message: Logger.Message, detail: String)?
            switch outcome {
            case .sent:
                name = "sent"
                report.sent += 1
            case .skipped:
                name = "skipped"
                report.skipped += 1
            case .retry(_, _, _, let detail):
                name = "retry"
                report.retrying += 1
                unsent = (.warning, "store obligation not sent yet", detail)
            case .failed(_, _, let detail):
                name = "failed"
                report.failed += 1
                unsent = (.error, "store obligation refused", detail)
            }
            let obligation = due.obligation
            if let unsent {
                logger.log(
                    level: unsent.level, unsent.message,
                    metadata: [
                        "obligation": "\(due.id)", "store": "\(obligation.store.rawValue)",
                        "kind": "\(obligation.kind.rawValue)", "detail": "\(unsent.detail)",
                    ])
            }
            Counter(
                label: "subledger_store_obligations_total",
                dimensions: [
                    ("store", obligation.store.rawValue), ("kind", obligation.kind.rawValue), ("outcome", name),
                ]
            ).increment()
        }
        return report
    }

    /// Makes `due`'s call once through its store's adapter and applies the retry policy; never throws.
    func send(_ due: StoreObligationStore.Due) async -> StoreObligationStore.Outcome {
        let instant = now()
        let app: StoredApp
        do {
            guard let found = try await catalog.app(bundleID: due.bundleID) else {
                return .failed(
                    httpStatus: nil, storeErrorCode: nil, detail: "unknown_app: the app is no longer configured")
            }
            app = found
        } catch {
            return retry(due, at: instant, detail: "database: \(error)")
        }
        guard let sender = senders[due.obligation.store] else {
            return retry(
                due, at: instant,
                detail: "no_sender: this process does not send \(due.obligation.store.rawValue) obligations")
        }
        switch await sender.send(due, app: app, now: instant) {
        case .sent(let token):
            return .sent(appAccountToken: token)
        case .transient(let status, let code, let detail, let notBefore):
            return retry(due, at: instant, httpStatus: status, storeErrorCode: code, detail: detail, after: notBefore)
        case .refused(let status, let code, let detail):
            return .failed(httpStatus: status, storeErrorCode: code, detail: detail)
        case .skipped(let detail):
            return .skipped(detail: detail)
        }
    }

    /// A transient failure, tried again under the retry policy.
    private func retry(
        _ due: StoreObligationStore.Due, at instant: Instant, httpStatus: Int? = nil, storeErrorCode: Int? = nil,
        detail: String, after notBefore: Instant? = nil
    ) -> StoreObligationStore.Outcome {
        .retry(
            nextAttempt: configuration.retry.nextAttempt(
                afterAttempts: due.attempts, now: instant, notBefore: notBefore),
            httpStatus: httpStatus, storeErrorCode: storeErrorCode, detail: detail)
    }
}
