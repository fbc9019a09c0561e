import AppStore
import AppStoreClients
import Foundation
import Logging
import Metrics
import ServiceLifecycle
import SubLedgerCore
import SubLedgerStore

/// Answers Apple's consumption requests (a customer asked for a refund) within Apple's 12 hours: part of
/// `subledger poll`, safe with any number of pollers (requests are leased with `FOR UPDATE SKIP LOCKED`).
///
/// For each due request it reads the ledger's facts and the app server's reports, lets
/// `ConsumptionAnswer.decide` choose (nothing without consent or when the app's policy is off), calls Send
/// Consumption Information (V2, or V1 when the catalog says so) and records the call, Apple's answer and the
/// request's new state in the audit trail. Transient failures (5xx, 429, timeouts, a missing API key) are
/// retried with backoff until the deadline; Apple's 4xx refusals are final.
public struct ConsumptionResponder: Service {
    /// How the responder runs.
    public struct Configuration: Sendable {
        /// Requests claimed per batch. Default 50.
        public var batchSize = 50
        /// How long a claimed request stays leased to this process. Default 5 minutes.
        public var lease: Duration = .seconds(300)
        /// Pause between cycles when looping. Default 60 s.
        public var interval: Duration = .seconds(60)
        /// The first retry's delay after a transient failure; it doubles per attempt. Default 60 s.
        public var retryBase: Duration = .seconds(60)
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
        public var skipped = 0
        public var retrying = 0
        public var failed = 0

        /// Nothing done.
        public init() {}

        public var description: String {
            "consumption requests sent \(sent), skipped \(skipped), retrying \(retrying), failed \(failed)"
        }

        mutating func add(_ outcome: ConsumptionAttemptRecord.Outcome) {
            switch outcome {
            case .accepted: sent += 1
            case .skippedNoConsent, .skippedDisabled: skipped += 1
            case .transientFailure: retrying += 1
            case .finalFailure: failed += 1
            }
        }
    }

    let configuration: Configuration
    let store: ConsumptionStore
    /// The apps the requests are for.
    let catalog: CatalogStore
    let apple: AppleGateway
    let logger: Logger
    let now: @Sendable () -> Instant

    public init(
        configuration: Configuration, store: ConsumptionStore, catalog: CatalogStore, apple: AppleGateway,
        logger: Logger,
        now: @escaping @Sendable () -> Instant
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
            failure: "consumption cycle failed"
        ) {
            let report = try await runCycle()
            if report != CycleReport() { logger.info("consumption cycle: \(report)") }
        }
        try? await store.releaseAll(worker: configuration.worker)
    }

    /// Answers every request due now, one at a time (there are few, and each is one call to Apple).
    public func runCycle() async throws -> CycleReport {
        var report = CycleReport()
        try await LeasedQueue.drain {
            try await store.claimDue(
                limit: configuration.batchSize, lease: configuration.lease, worker: configuration.worker, now: now())
        } handle: { request in
            let record = await answer(request)
            try await store.finish(request, record, worker: configuration.worker, now: now())
            Counter(
                label: "subledger_consumption_answers_total", dimensions: [("outcome", record.outcome.rawValue)]
            )
            .increment()
            if record.outcome == .finalFailure || record.outcome == .transientFailure {
                logger.warning(
                    "consumption request not answered",
                    metadata: [
                        "request": "\(request.requestID)", "outcome": "\(record.outcome.rawValue)",
                        "detail": "\(record.detail ?? "")",
                    ])
            }
            report.add(record.outcome)
        }
        return report
    }

    /// Decides and, when there is something to send, calls Apple once; never throws (a failure is a record).
    func answer(_ request: DueConsumptionRequest) async -> ConsumptionAttemptRecord {
        let instant = now()
        guard instant < request.deadline else {
            return ConsumptionAttemptRecord(outcome: .finalFailure, detail: "deadline_passed: Apple's 12 hours ran out")
        }
        let app: StoredApp
        let facts: ConsumptionFacts
        do {
            guard let found = try await catalog.app(bundleID: request.bundleID) else {
                return ConsumptionAttemptRecord(
                    outcome: .finalFailure, detail: "unknown_app: the app is no longer configured")
            }
            app = found
            facts = try await store.facts(for: request, app: app, now: instant)
        } catch {
            return retry(request, at: instant, detail: "database: \(error)")
        }
        let information: ConsumptionInformation
        switch ConsumptionAnswer.decide(facts, policy: app.definition.consumption, now: instant) {
        case .skip(.disabled):
            return ConsumptionAttemptRecord(
                outcome: .skippedDisabled, detail: "the app's catalog does not enable consumption answers")
        case .skip(.noConsent):
            return ConsumptionAttemptRecord(
                outcome: .skippedNoConsent, detail: "no consent in force for the purchase's account")
        case .send(let computed):
            information = computed
        }
        let version = app.definition.consumption.endpoint
        let body: String
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let data =
                switch version {
                case .v2: try encoder.encode(ConsumptionRequest(information))
                case .v1: try encoder.encode(ConsumptionRequestV1(information))
                }
            body = String(decoding: data, as: UTF8.self)
        } catch {
            return ConsumptionAttemptRecord(outcome: .finalFailure, detail: "the request body could not be encoded")
        }
        let client: AppStoreServerAPIClient
        do {
            guard let configured = try apple.serverAPIClient(for: app, environment: request.environment) else {
                // A configuration the operator can still fix before the deadline.
                return retry(
                    request, at: instant, endpoint: version.rawValue, body: body,
                    detail: "no_server_api_key: the app has no App Store Server API key")
            }
            client = configured
        } catch {
            return retry(
                request, at: instant, endpoint: version.rawValue, body: body, detail: "server_api_key: \(error)")
        }
        do {
            try await apple.callServerAPI(.consumptionInformation) { () async throws(AppStoreServerAPIError) in
                switch version {
                case .v2:
                    try await client.sendConsumptionInformation(
                        transactionID: request.transactionID, ConsumptionRequest(information))
                case .v1:
                    try await client.sendConsumptionInformationV1(
                        transactionID: request.transactionID, ConsumptionRequestV1(information))
                }
            }
            return ConsumptionAttemptRecord(outcome: .accepted, endpoint: version.rawValue, body: body, httpStatus: 202)
        } catch {
            switch error {
            case .notCalled(let wait):
                // Nothing was sent (the breaker is open, or every call is busy): tried again like any transient
                // failure.
                return retry(
                    request, at: instant, endpoint: version.rawValue, body: body,
                    detail: "apple_unavailable: Apple is not called now; not sent",
                    after: instant.adding(milliseconds: wait.milliseconds))
            case .apple(let error):
                if error.isRetryable {
                    return retry(
                        request, at: instant, endpoint: version.rawValue, body: body, httpStatus: error.httpStatus,
                        appleErrorCode: error.apiErrorCode, detail: "\(error)", after: error.retryAfter)
                }
                return ConsumptionAttemptRecord(
                    outcome: .finalFailure, endpoint: version.rawValue, body: body, httpStatus: error.httpStatus,
                    appleErrorCode: error.apiErrorCode, detail: "\(error)")
            }
        }
    }

    /// A transient failure, tried again after the backoff of the request's attempts (or Apple's
    /// `Retry-After`); final when the next try would come after the deadline.
    private func retry(
        _ request: DueConsumptionRequest, at instant: Instant, endpoint: String? = nil, body: String? = nil,
        httpStatus: Int? = nil, appleErrorCode: Int? = nil, detail: String, after retryAfter: Instant? = nil
    ) -> ConsumptionAttemptRecord {
        let base = configuration.retryBase.milliseconds
        let maximum = configuration.retryMaximum.milliseconds
        let delay = min(maximum, base.saturatingMultiplied(by: Int64(1) << Int64(min(request.attempts, 20))))
        var next = instant.adding(milliseconds: delay)
        if let retryAfter, retryAfter > next { next = retryAfter }
        guard next < request.deadline else {
            return ConsumptionAttemptRecord(
                outcome: .finalFailure, endpoint: endpoint, body: body, httpStatus: httpStatus,
                appleErrorCode: appleErrorCode, detail: "deadline_passed after: \(detail)")
        }
        return ConsumptionAttemptRecord(
            outcome: .transientFailure, endpoint: endpoint, body: body, httpStatus: httpStatus,
            appleErrorCode: appleErrorCode, detail: detail, nextAttemptAt: next)
    }
}

extension Duration {
    fileprivate var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
