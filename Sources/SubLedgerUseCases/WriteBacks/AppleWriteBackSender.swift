import AppStore
import AppStoreClients
import Logging
import Metrics
import ServiceLifecycle
import SubLedgerCore
import SubLedgerStore

/// Sends what applies owed Apple (`apple_write_backs`, schema step 30): Set App Account Token when a chain was bound
/// to an account, Finish Transaction when a consumable or non-consumable was credited. Part of `subledger poll`,
/// safe with any number of pollers (write-backs are leased with `FOR UPDATE SKIP LOCKED`).
///
/// Each write-back was recorded in the transaction of the apply that decided it, so it is sent exactly when its
/// cause committed; a failure is retried with backoff (5xx, 429, timeouts, Apple not called now, a missing API key,
/// which the operator can still add), Apple's 4xx refusals are final. Every outcome is counted in
/// `subledger_apple_write_backs_total{kind,outcome}` and kept on the row (the admin page's counts).
public struct AppleWriteBackSender: Service {
    /// How the sender runs.
    public struct Configuration: Sendable {
        /// Write-backs claimed per batch. Default 100.
        public var batchSize = 100
        /// How long a claimed write-back stays leased to this process. Default 5 minutes.
        public var lease: Duration = .seconds(300)
        /// Pause between cycles when looping. Default 10 s.
        public var interval: Duration = .seconds(10)
        /// The first retry's delay; it doubles per attempt. Default 30 s.
        public var retryBase: Duration = .seconds(30)
        /// The longest delay between retries. Default 1 hour.
        public var retryMaximum: Duration = .seconds(3_600)
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

        /// Nothing done.
        public init() {}

        public var description: String { "apple write-backs sent \(sent), retrying \(retrying), failed \(failed)" }
    }

    let configuration: Configuration
    let store: AppleWriteBackStore
    /// The apps the write-backs are for.
    let catalog: CatalogStore
    let apple: AppleGateway
    let logger: Logger
    let now: @Sendable () -> Instant

    public init(
        configuration: Configuration, store: AppleWriteBackStore, catalog: CatalogStore, apple: AppleGateway,
        logger: Logger, now: @escaping @Sendable () -> Instant
    ) {
        self.configuration = configuration
        self.store = store
        self.catalog = catalog
        self.apple = apple
        self.logger = logger
        self.now = now
    }

    public func run() async throws {
        try await PeriodicCycles.run(
            once: configuration.once, interval: configuration.interval, logger: logger,
            failure: "write-back cycle failed"
        ) {
            let report = try await runCycle()
            if report != CycleReport() { logger.info("write-back cycle: \(report)") }
        }
        try? await store.releaseAll(worker: configuration.worker)
    }

    /// Sends every write-back due now, oldest first.
    public func runCycle() async throws -> CycleReport {
        var report = CycleReport()
        try await LeasedQueue.drain {
            try await store.claimDue(
                limit: configuration.batchSize, lease: configuration.lease, worker: configuration.worker, now: now())
        } handle: { writeBack in
            let outcome = await send(writeBack)
            try await store.finish(writeBack, outcome, worker: configuration.worker, now: now())
            let name: String
            var unsent: (level: Logger.Level, message: Logger.Message, detail: String)?
            switch outcome {
            case .sent:
                name = "sent"
                report.sent += 1
            case .retry(_, _, _, let detail):
                name = "retry"
                report.retrying += 1
                unsent = (.warning, "write-back not sent yet", detail)
            case .failed(_, _, let detail):
                name = "failed"
                report.failed += 1
                unsent = (.error, "write-back refused", detail)
            }
            if let unsent {
                logger.log(
                    level: unsent.level, unsent.message,
                    metadata: [
                        "write_back": "\(writeBack.id)", "kind": "\(writeBack.kind.rawValue)",
                        "detail": "\(unsent.detail)",
                    ])
            }
            Counter(
                label: "subledger_apple_write_backs_total",
                dimensions: [("kind", writeBack.kind.rawValue), ("outcome", name)]
            ).increment()
        }
        return report
    }

    /// Calls Apple once for `writeBack`; never throws (a failure is an outcome).
    func send(_ writeBack: AppleWriteBackStore.Due) async -> AppleWriteBackStore.Outcome {
        let instant = now()
        let app: StoredApp
        do {
            guard let found = try await catalog.app(bundleID: writeBack.bundleID) else {
                return .failed(
                    httpStatus: nil, appleErrorCode: nil, detail: "unknown_app: the app is no longer configured")
            }
            app = found
        } catch {
            return retry(writeBack, at: instant, detail: "database: \(error)")
        }
        let client: AppStoreServerAPIClient
        do {
            guard let configured = try apple.serverAPIClient(for: app, environment: writeBack.environment) else {
                return retry(
                    writeBack, at: instant, detail: "no_server_api_key: the app has no App Store Server API key")
            }
            client = configured
        } catch {
            return retry(writeBack, at: instant, detail: "server_api_key: \(error)")
        }
        var token: String?
        do {
            switch writeBack.kind {
            case .setAppAccountToken:
                let accountToken = try await store.token(for: writeBack.account, appID: writeBack.appID)
                token = accountToken
                try await apple.callServerAPI(.setAppAccountToken) { () async throws(AppStoreServerAPIError) in
                    try await client.setAppAccountToken(
                        originalTransactionID: writeBack.transactionID, appAccountToken: accountToken)
                }
            case .finishTransaction:
                try await apple.callServerAPI(.finishTransaction) { () async throws(AppStoreServerAPIError) in
                    try await client.finishTransaction(transactionID: writeBack.transactionID)
                }
            }
            return .sent(token: token)
        } catch let error as ServerAPICallFailure {
            switch error {
            case .notCalled(let wait):
                return retry(
                    writeBack, at: instant, detail: "apple_unavailable: Apple is not called now; not sent",
                    after: instant.adding(milliseconds: wait.milliseconds))
            case .apple(let error):
                if error.isRetryable {
                    return retry(
                        writeBack, at: instant, httpStatus: error.httpStatus, appleErrorCode: error.apiErrorCode,
                        detail: "\(error)", after: error.retryAfter)
                }
                return .failed(httpStatus: error.httpStatus, appleErrorCode: error.apiErrorCode, detail: "\(error)")
            }
        } catch {
            return retry(writeBack, at: instant, detail: "database: \(error)")
        }
    }

    /// A transient failure, tried again after the backoff of the write-back's attempts (or Apple's `Retry-After`).
    private func retry(
        _ writeBack: AppleWriteBackStore.Due, at instant: Instant, httpStatus: Int? = nil, appleErrorCode: Int? = nil,
        detail: String, after retryAfter: Instant? = nil
    ) -> AppleWriteBackStore.Outcome {
        let base = configuration.retryBase.milliseconds
        let maximum = configuration.retryMaximum.milliseconds
        let delay = min(maximum, base.saturatingMultiplied(by: Int64(1) << Int64(min(writeBack.attempts, 20))))
        var next = instant.adding(milliseconds: delay)
        if let retryAfter, retryAfter > next { next = retryAfter }
        return .retry(nextAttempt: next, httpStatus: httpStatus, appleErrorCode: appleErrorCode, detail: detail)
    }
}

extension Duration {
    fileprivate var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
