import Logging
import Metrics
import ServiceLifecycle
import SubLedgerCore
import SubLedgerStore

/// `subledger poll`: checks with each store what its notifications may have missed, and verifies stored inputs that
/// their store could not verify when they arrived.
///
/// Each cycle claims due chains and pending inputs (leases, `FOR UPDATE SKIP LOCKED`), works on them with
/// bounded concurrency under a rate limit toward the stores, hands each to its store's port (`StorePort`), which
/// applies what the store says through the same ledger path as everything else (no submitter: the chain's owner
/// keeps it), and gives the leases back.
public struct RenewalPoller: Service {
    /// How the job runs.
    public struct Configuration: Sendable {
        /// Items worked on at once. Default 4.
        public var concurrency: Int = 4
        /// Items claimed per batch. Default 100.
        public var batchSize: Int = 100
        /// A chain expiring within this window is due. Default 1 day.
        public var window: Duration = .seconds(86_400)
        /// How long a claimed item stays leased to this poller. Default 5 minutes.
        public var lease: Duration = .seconds(300)
        /// Pause between cycles when looping. Default 60 s.
        public var interval: Duration = .seconds(60)
        /// Calls to the stores per second, across this poller's workers. Default 20.
        public var requestsPerSecond: Double = 20
        /// A `pending` input (receipt or notification) younger than this may still be in its request; the job
        /// leaves it alone. Default 2 minutes.
        public var pendingAge: Duration = .seconds(120)
        /// A chain checked and still not renewed is checked again after this. Default 1 hour.
        public var recheck: Duration = .seconds(3_600)
        /// Run one cycle and return (for cron).
        public var once = false
        /// This poller's name in leases. Default: host and process id.
        public var worker: String

        public init(worker: String) {
            self.worker = worker
        }
    }

    /// What one cycle did.
    public struct CycleReport: Sendable, Hashable, CustomStringConvertible {
        public var checked = 0
        public var renewed = 0
        public var expired = 0
        public var revoked = 0
        public var credited = 0
        public var skipped = 0
        public var errors = 0
        /// Stored notifications applied by the job.
        public var notifications = 0
        /// Stored inputs given up on (see `StoredInputRetry`).
        public var quarantined = 0

        public var description: String {
            "checked \(checked), renewed \(renewed), expired \(expired), revoked \(revoked), "
                + "stored inputs credited \(credited), notifications applied \(notifications), skipped \(skipped), "
                + "errors \(errors), quarantined \(quarantined)"
        }

        /// The `result` label's values of `subledger_poll_items_total`, as `recordMetrics` names them
        /// (`MetricDeclarations`).
        static let resultNames = [
            "checked", "renewed", "expired", "revoked", "credited", "skipped", "errors", "notifications", "quarantined",
        ]

        /// Adds this cycle's counts to the `subledger_poll_items_total{result=...}` counters.
        func recordMetrics() {
            let counts = [
                ("checked", checked), ("renewed", renewed), ("expired", expired), ("revoked", revoked),
                ("credited", credited), ("skipped", skipped), ("errors", errors), ("notifications", notifications),
                ("quarantined", quarantined),
            ]
            for (result, count) in counts where count > 0 {
                Counter(label: "subledger_poll_items_total", dimensions: [("result", result)]).increment(by: count)
            }
            Counter(label: "subledger_poll_cycles_total").increment()
        }

        mutating func add(_ other: CycleReport) {
            checked += other.checked
            renewed += other.renewed
            expired += other.expired
            revoked += other.revoked
            credited += other.credited
            skipped += other.skipped
            errors += other.errors
            notifications += other.notifications
            quarantined += other.quarantined
        }
    }

    /// How one claimed chain is checked; the production one is `ChainRefresher.stores(_:)`, through the chain's
    /// store's port.
    public struct ChainRefresher: Sendable {
        public var refresh: @Sendable (PollQueue.DueChain, StoredApp) async throws -> LedgerStore.Applied?

        public init(refresh: @escaping @Sendable (PollQueue.DueChain, StoredApp) async throws -> LedgerStore.Applied?) {
            self.refresh = refresh
        }
    }

    let configuration: Configuration
    let queue: PollQueue
    let store: LedgerStore
    let catalog: CatalogStore
    let refresher: ChainRefresher
    /// The stores this process speaks to: stored inputs, notifications and chains go to their store's port.
    let ports: StorePorts
    let logger: Logger
    let now: @Sendable () -> Instant
    let limiter: RateLimiter

    /// The job over `ports`: each stored input, notification and due chain goes to its store's port.
    public init(
        configuration: Configuration, queue: PollQueue, store: LedgerStore, catalog: CatalogStore, ports: StorePorts,
        refresher: ChainRefresher? = nil, logger: Logger, now: @escaping @Sendable () -> Instant
    ) {
        self.configuration = configuration
        self.queue = queue
        self.store = store
        self.catalog = catalog
        self.ports = ports
        self.refresher = refresher ?? .stores(ports)
        self.logger = logger
        self.now = now
        self.limiter = RateLimiter(perSecond: configuration.requestsPerSecond)
    }

    public func run() async throws {
        var cycle = 0
        defer {
            // Leases are given back on the way out, so other pollers need not wait them out.
            let queue = self.queue
            let worker = configuration.worker
            let logger = self.logger
            Task {
                do { try await queue.releaseAll(worker: worker) } catch {
                    logger.warning("could not release leases: \(error)")
                }
            }
        }
        var failing = false
        repeat {
            cycle += 1
            do {
                let report = try await runCycle()
                logger.info("poll cycle \(cycle): \(report)")
                report.recordMetrics()
                if failing { logger.notice("poll cycles work again") }
                failing = false
            } catch  where !configuration.once {
                // The database went away (a failover, a restart): the leases taken run out by themselves and the
                // next cycle claims the work again, so the job waits instead of taking `poll` down with it.
                // Said once per outage.
                if !failing { logger.warning("poll cycle \(cycle) failed; retrying", metadata: ["error": "\(error)"]) }
                failing = true
            }
            if configuration.once || Task.isShuttingDownGracefully { break }
            // Woken by graceful shutdown, so SIGTERM stops `poll` at once instead of after the interval.
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: configuration.interval) }
        } while !Task.isCancelled && !Task.isShuttingDownGracefully
        do {
            try await queue.releaseAll(worker: configuration.worker)
        } catch  where !configuration.once {
            logger.warning("could not release leases; they run out by themselves", metadata: ["error": "\(error)"])
        }
    }

    /// One pass over everything due now: stored inputs first (a purchase waiting to be credited, a
    /// notification not applied), then chains. Each claimed input's next attempt is set when it is claimed,
    /// so no input is claimed twice in a cycle, whatever happens to it.
    public func runCycle() async throws -> CycleReport {
        var report = CycleReport()
        let retry = ports.ledger.retry
        let exhausted = try await queue.quarantineExhausted(
            pendingAge: configuration.pendingAge, now: now(), retry: retry)
        if exhausted.receipts + exhausted.notifications > 0 {
            logger.warning(
                "stored inputs quarantined after their last attempt",
                metadata: ["receipts": "\(exhausted.receipts)", "notifications": "\(exhausted.notifications)"])
        }
        StoredInputMetrics.quarantined("receipt", count: exhausted.receipts)
        StoredInputMetrics.quarantined("notification", count: exhausted.notifications)
        report.quarantined = exhausted.receipts + exhausted.notifications
        try await wakeDeferredInputs()
        while !Task.isShuttingDownGracefully {
            let inputs = try await queue.claimPendingInputs(
                limit: configuration.batchSize, pendingAge: configuration.pendingAge, lease: configuration.lease,
                worker: configuration.worker, now: now(), retry: retry)
            if inputs.isEmpty { break }
            report.add(await forEach(inputs) { try await verify($0) })
        }
        while !Task.isShuttingDownGracefully {
            let notifications = try await queue.claimPendingNotifications(
                limit: configuration.batchSize, pendingAge: configuration.pendingAge, lease: configuration.lease,
                worker: configuration.worker, now: now(), retry: retry)
            if notifications.isEmpty { break }
            report.add(await forEach(notifications) { try await apply($0) })
        }
        while !Task.isShuttingDownGracefully {
            let chains = try await queue.claimDueChains(
                limit: configuration.batchSize, window: configuration.window, lease: configuration.lease,
                worker: configuration.worker, now: now())
            if chains.isEmpty { break }
            report.add(await forEach(chains) { try await check($0) })
        }
        return report
    }

    /// Submissions deferred because their store did not answer are due as soon as it answers again, not after their
    /// backoff: each store's port is asked once per cycle (`StorePort.wakeDeferredInputs`). Sets
    /// `subledger_stored_inputs_deferred` to what waits in every store.
    func wakeDeferredInputs() async throws {
        var deferred = 0
        for store in Store.allCases {
            guard let port = ports.configuredPort(for: store) else { continue }
            let wake = try await port.wakeDeferredInputs(now: now())
            deferred += wake.deferred
            if wake.woken > 0 {
                logger.notice(
                    "the store answers again; deferred submissions are due",
                    metadata: ["store": "\(store.rawValue)", "submissions": "\(wake.woken)"])
            }
        }
        StoredInputMetrics.deferred(deferred)
    }

    /// Runs `work` on `items` with at most `concurrency` at once; an item's failure is counted, not thrown.
    private func forEach<Item: Sendable>(
        _ items: [Item], _ work: @escaping @Sendable (Item) async throws -> CycleReport
    ) async -> CycleReport {
        await withTaskGroup(of: CycleReport.self) { group in
            var iterator = items.makeIterator()
            var total = CycleReport()
            func next() -> Bool {
                guard let item = iterator.next() else { return false }
                group.addTask {
                    do {
                        return try await work(item)
                    } catch {
                        logger.warning("poll item failed", metadata: ["error": "\(error)"])
                        var failed = CycleReport()
                        failed.errors = 1
                        return failed
                    }
                }
                return true
            }
            for _ in 0..<max(1, configuration.concurrency) where next() {}
            for await result in group {
                total.add(result)
                _ = next()
            }
            return total
        }
    }

    /// Verifies one claimed input, then gives its lease back (awaited: a lease still held when the input is
    /// next due would read as a job that died while working on it).
    private func verify(_ input: PollQueue.PendingInput) async throws -> CycleReport {
        let report: CycleReport
        do {
            report = try await verifyLeased(input)
        } catch {
            try? await queue.finishInput(input, worker: configuration.worker)
            throw error
        }
        try? await queue.finishInput(input, worker: configuration.worker)
        return report
    }

    private func verifyLeased(_ input: PollQueue.PendingInput) async throws -> CycleReport {
        var report = CycleReport()
        report.checked = 1
        guard let app = try await catalog.app(bundleID: input.bundleID) else { return report }
        try await limiter.acquire()
        do {
            try await ports.port(for: input.kind.store).verifyStored(input, app: app)
            report.credited = 1
        } catch let error as IngestionError where !error.isTransient {
            // Final: the store or the signature said no; the input is marked invalid by the ingestion path.
            report.errors = 1
        } catch let error as IngestionError {
            // The store still unavailable: the ingestion path has recorded the failure and the next attempt.
            logger.info(
                "stored input still waits for its store",
                metadata: ["receipt": "\(input.submissionID)", "error": "\(error.code.rawValue)"])
            report.errors = 1
        } catch {
            // Applying it failed (a poison input, the database): recorded with its error, retried with backoff
            // until it is quarantined. The job goes on with the next input.
            logger.warning(
                "stored input failed to apply", metadata: ["receipt": "\(input.submissionID)", "error": "\(error)"])
            let marked = try? await ports.ledger.markSubmission(
                input.submissionID, failed: "\(error)", retryable: true, now: now())
            if marked?.status == "quarantined" {
                StoredInputMetrics.quarantined("receipt")
                report.quarantined = 1
            }
            report.errors = 1
        }
        return report
    }

    /// Applies one claimed notification, then gives its lease back (awaited, as `verify` does).
    private func apply(_ notification: PollQueue.PendingNotification) async throws -> CycleReport {
        let report: CycleReport
        do {
            report = try await applyLeased(notification)
        } catch {
            try? await queue.finishNotification(notification, worker: configuration.worker)
            throw error
        }
        try? await queue.finishNotification(notification, worker: configuration.worker)
        return report
    }

    private func applyLeased(_ notification: PollQueue.PendingNotification) async throws -> CycleReport {
        var report = CycleReport()
        report.checked = 1
        guard let app = try await catalog.app(bundleID: notification.bundleID) else { return report }
        do {
            if try await ports.port(for: notification.format.store).applyStored(notification, app: app) {
                report.notifications = 1
            }
        } catch {
            // Recorded on the row by the ingestion path (backoff, then quarantine).
            logger.warning(
                "stored notification failed to apply",
                metadata: ["notification": "\(notification.rowID)", "error": "\(error)"])
            report.errors = 1
        }
        return report
    }

    private func check(_ chain: PollQueue.DueChain) async throws -> CycleReport {
        var report = CycleReport()
        report.checked = 1
        guard let app = try await catalog.app(bundleID: chain.bundleID) else { return report }
        let instant = now()
        do {
            try await limiter.acquire()
            guard let applied = try await refresher.refresh(chain, app) else {
                report.skipped = 1
                try await queue.finishChain(
                    chain, worker: configuration.worker, failed: false,
                    nextPollAt: instant.adding(duration: .seconds(86_400)), now: instant)
                return report
            }
            report.renewed = applied.decision.entries.filter { $0.kind == .extend }.count
            report.revoked = applied.decision.entries.filter { $0.kind == .revoke }.count
            let state = applied.decision.updatedChains.first { $0.key == chain.key }?.state(
                at: instant, in: app.definition)
            if case .expired = state { report.expired = 1 }
            try await queue.finishChain(
                chain, worker: configuration.worker, failed: false,
                nextPollAt: nextCheck(after: applied, chain: chain, app: app, at: instant), now: instant)
        } catch {
            let backoff = Duration.seconds(min(6 * 3_600, 60 << min(chain.pollFailures, 12)))
            try await queue.finishChain(
                chain, worker: configuration.worker, failed: true, nextPollAt: instant.adding(duration: backoff),
                now: instant)
            throw error
        }
        return report
    }

    /// After a successful check: again `window` before the next expiry, or after `recheck` if the chain is
    /// still waiting for its store (expired while auto-renewing, in billing retry or grace).
    private func nextCheck(
        after applied: LedgerStore.Applied, chain: PollQueue.DueChain, app: StoredApp, at instant: Instant
    ) -> Instant {
        let recheck = instant.adding(duration: configuration.recheck)
        guard let updated = applied.decision.updatedChains.first(where: { $0.key == chain.key }),
            let expiry = updated.header.latestExpiry
        else { return recheck }
        let beforeExpiry = expiry.adding(duration: .zero - configuration.window)
        return beforeExpiry > recheck ? beforeExpiry : recheck
    }
}

extension RenewalPoller.ChainRefresher {
    /// Checks a chain with the store that sold it, through its port (`StorePort.refresh`); a chain of a store this
    /// process is not configured for is skipped (`nil`) and checked again a day later.
    public static func stores(_ ports: StorePorts) -> Self {
        Self { chain, app in
            guard let port = ports.configuredPort(for: chain.route.store) else { return nil }
            return try await port.refresh(chain, app: app)
        }
    }
}

extension Instant {
    package func adding(duration: Duration) -> Instant {
        let (seconds, attoseconds) = duration.components
        return adding(milliseconds: seconds * 1000 + attoseconds / 1_000_000_000_000_000)
    }
}
