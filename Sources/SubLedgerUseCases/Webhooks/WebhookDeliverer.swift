import Foundation
import Logging
import PostgresLibPQ
import ServiceLifecycle
import SubLedgerCore
import SubLedgerStore

/// Delivers webhook events: part of every `serve` and `poll` process, safe with any number of them.
///
/// It wakes when an event is written (`LISTEN subledger_webhooks`, sent by the fan-out trigger) and at every
/// sweep (`sweepInterval`, for retries whose time has come and for notifications lost while the listening
/// connection was down), claims due deliveries in batches with a lease (`WebhookDeliveryStore.claimDue`),
/// sends up to `concurrency` at once (`WebhookSender`), and records each attempt with its outcome in one
/// transaction per batch. A process that dies leaves its leases to run out, after which another deliverer
/// takes the deliveries over: delivery is at least once, and receivers dedupe by event id. On graceful
/// shutdown the batch in flight finishes (each request has at most `sender.timeout`) and the leases of
/// deliveries not yet sent are given back.
public struct WebhookDeliverer: Service {
    /// The channel the fan-out trigger notifies (`migrations/0010_webhook_outbox.sql`).
    public static let channel = "subledger_webhooks"

    /// How the deliverer runs.
    public struct Configuration: Sendable {
        /// This process's name in leases and in the attempts it records.
        public var worker: String
        /// Deliveries claimed per batch. Default 200.
        public var batchSize = 200
        /// Requests in flight at once. Default 32.
        public var concurrency = 32
        /// How long a claimed delivery stays leased: longer than a batch's requests take (at most
        /// `sender.timeout` per request, `concurrency` at once). Default 2 minutes.
        public var lease: Duration = .seconds(120)
        /// How often due deliveries are looked for without a notification. Default 1 s.
        public var sweepInterval: Duration = .seconds(1)
        /// How often the queue metrics are sampled. Default 10 s.
        public var metricsInterval: Duration = .seconds(10)
        /// Backoff, giving up and pausing. Defaults: `WebhookRetryPolicy()`.
        public var retry = WebhookRetryPolicy()
        /// Timeouts and limits of the requests.
        public var sender = WebhookSender.Configuration()

        /// `worker` defaults to `host:pid`.
        public init(worker: String = Configuration.defaultWorker()) {
            self.worker = worker
        }

        /// `host:pid`, from gethostname(2) (a system call: no name lookup, unlike `ProcessInfo.hostName`, since
        /// every `ServiceConfiguration` makes one).
        public static func defaultWorker() -> String {
            var buffer = [CChar](repeating: 0, count: 256)
            let host =
                gethostname(&buffer, buffer.count - 1) == 0
                ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "unknown"
            return "\(host):\(getpid())"
        }
    }

    /// What one pass over the due deliveries did.
    public struct PassReport: Sendable, Hashable, CustomStringConvertible {
        public var delivered = 0
        public var retrying = 0
        public var failed = 0
        public var leaseLost = 0
        public var pausedEndpoints = 0

        public init() {}

        public var attempts: Int { delivered + retrying + failed + leaseLost }

        public var description: String {
            "webhook deliveries: delivered \(delivered), retrying \(retrying), failed \(failed), "
                + "lease lost \(leaseLost), endpoints paused \(pausedEndpoints)"
        }
    }

    public let configuration: Configuration
    let store: WebhookDeliveryStore
    let sender: WebhookSender
    let logger: Logger
    let now: @Sendable () -> Instant
    /// Where the doorbell's LISTEN connection goes when not `store.pool` (behind a transaction pooler).
    var listenPool: PostgresPool?

    public init(
        configuration: Configuration, store: WebhookDeliveryStore, resolver: WebhookAddressResolver = .system,
        logger: Logger, now: @escaping @Sendable () -> Instant = { Instant.systemNow() }
    ) {
        self.configuration = configuration
        self.store = store
        self.sender = WebhookSender(configuration: configuration.sender, resolver: resolver)
        self.logger = logger
        self.now = now
    }

    public func run() async throws {
        let (wakeups, doorbell) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await listen(doorbell) }
            group.addTask {
                while !Task.isCancelled {
                    doorbell.yield(())
                    try? await Task.sleep(for: configuration.sweepInterval)
                }
            }
            var lastSample: ContinuousClock.Instant?
            var failing = false
            for await _ in wakeups.cancelOnGracefulShutdown() {
                do {
                    let report = try await deliverDue()
                    if report.retrying + report.failed + report.pausedEndpoints > 0 { logger.info("\(report)") }
                    if failing { logger.notice("webhook delivery works again") }
                    failing = false
                } catch {
                    // The database went away (or its schema is not current yet): leases run out, a later pass
                    // (here or elsewhere) sends again. Said once per outage, not at every sweep.
                    if !failing { logger.warning("webhook delivery pass failed", metadata: ["error": "\(error)"]) }
                    failing = true
                }
                let clock = ContinuousClock.now
                if lastSample.map({ $0.duration(to: clock) >= configuration.metricsInterval }) ?? true {
                    lastSample = clock
                    if let status = try? await store.queueStatus() { WebhookMetrics.queue(status, now: now()) }
                }
                if Task.isShuttingDownGracefully { break }
            }
            group.cancelAll()
        }
        try? await store.releaseAll(worker: configuration.worker)
    }

    /// Rings the doorbell at every notification on the channel; reconnects after a failure.
    private func listen(_ doorbell: AsyncStream<Void>.Continuation) async {
        while !Task.isCancelled {
            do {
                let notifications = try await (listenPool ?? store.pool).listen(channel: Self.channel)
                // Events written while not listening are found by this first pass.
                doorbell.yield(())
                for try await _ in notifications { doorbell.yield(()) }
            } catch {
                if Task.isCancelled { return }
                logger.warning("webhook listener failed; retrying", metadata: ["error": "\(error)"])
                try? await Task.sleep(for: .seconds(2))
            }
        }
    }

    /// Claims and sends batches until nothing is due (or graceful shutdown), then returns what it did.
    public func deliverDue() async throws -> PassReport {
        var report = PassReport()
        while !Task.isCancelled {
            let batch = try await store.claimDue(
                limit: configuration.batchSize, lease: configuration.lease, worker: configuration.worker, now: now())
            if batch.isEmpty { break }
            let attempts = await send(batch)
            let recorded = try await store.record(
                attempts, worker: configuration.worker, now: now(), policy: configuration.retry)
            let finished = now()
            for delivery in batch {
                guard let outcome = recorded.outcomes[delivery.deliveryID] else { continue }
                WebhookMetrics.record(outcome)
                switch outcome {
                case .delivered:
                    report.delivered += 1
                    WebhookMetrics.delivered(eventCreatedAt: delivery.eventCreatedAt, now: finished)
                case .retrying: report.retrying += 1
                case .failed: report.failed += 1
                case .leaseLost: report.leaseLost += 1
                }
            }
            report.pausedEndpoints += recorded.pausedEndpoints.count
            WebhookMetrics.paused(count: recorded.pausedEndpoints.count)
            for endpoint in recorded.pausedEndpoints {
                logger.warning(
                    "webhook endpoint paused: its deliveries kept failing; resume it once it answers",
                    metadata: ["endpoint": "\(endpoint.uuidString.lowercased())"])
            }
            if batch.count < configuration.batchSize || Task.isShuttingDownGracefully { break }
        }
        return report
    }

    /// Sends a batch, at most `concurrency` requests at once; a delivery that may not be sent (its address is
    /// refused, its secret cannot be opened) becomes a failed attempt without a request.
    func send(_ batch: [WebhookDeliveryStore.DueDelivery]) async -> [WebhookDeliveryStore.Attempt] {
        struct Destination: Hashable {
            var url: String
            var allowPrivateNetwork: Bool
        }
        var checked: Set<Destination> = []
        var refusals: [Destination: String] = [:]
        for delivery in batch {
            let destination = Destination(url: delivery.url, allowPrivateNetwork: delivery.allowPrivateNetwork)
            guard checked.insert(destination).inserted else { continue }
            refusals[destination] = await sender.refusal(
                url: delivery.url, allowPrivateNetwork: delivery.allowPrivateNetwork)
        }
        return await withTaskGroup(of: WebhookDeliveryStore.Attempt.self) { group in
            var attempts: [WebhookDeliveryStore.Attempt] = []
            attempts.reserveCapacity(batch.count)
            var next = batch.startIndex
            var running = 0
            while next < batch.endIndex || running > 0 {
                while running < max(1, configuration.concurrency), next < batch.endIndex {
                    let delivery = batch[next]
                    let destination = Destination(url: delivery.url, allowPrivateNetwork: delivery.allowPrivateNetwork)
                    let refusal = refusals[destination]
                    group.addTask { await attempt(delivery, refusal: refusal ?? delivery.secretError) }
                    next += 1
                    running += 1
                }
                if let finished = await group.next() {
                    attempts.append(finished)
                    running -= 1
                }
            }
            return attempts
        }
    }

    private func attempt(
        _ delivery: WebhookDeliveryStore.DueDelivery, refusal: String?
    ) async -> WebhookDeliveryStore.Attempt {
        let startedAt = now()
        let clock = ContinuousClock()
        let started = clock.now
        let status: Int?
        let error: String?
        if let refusal {
            (status, error) = (nil, refusal)
        } else {
            let result = await sender.send(delivery, now: startedAt)
            (status, error) = (result.status, result.error)
        }
        return WebhookDeliveryStore.Attempt(
            deliveryID: delivery.deliveryID, endpointID: delivery.endpointID, attemptedAt: startedAt,
            duration: started.duration(to: clock.now), status: status, error: error,
            previousAttempts: delivery.attempts)
    }
}

extension WebhookDeliverer {
    /// The deliverer of a `serve` or `poll` process on `pool`, opening sealed secrets with the configured keys.
    package static func live(
        _ delivery: Configuration, _ configuration: ServiceConfiguration, _ pool: PostgresPool, _ logger: Logger,
        listenPool: PostgresPool? = nil
    ) -> WebhookDeliverer {
        var deliverer = WebhookDeliverer(
            configuration: delivery, store: WebhookDeliveryStore(pool: pool, secretKeys: configuration.secretKeys),
            logger: logger)
        deliverer.listenPool = listenPool
        return deliverer
    }
}
