import AppStore
import AppStoreClients
import Foundation
import Logging
import SubLedgerCore
import SubLedgerStore
import SubLedgerUseCases

/// Recovers notifications that never reached SubLedger (an outage longer than Apple's retries) from Apple's
/// Get Notification History, and feeds each one through the same ingestion as a delivered notification.
///
/// Per app and environment, `NotificationHistoryCursors` keeps how far the history is known complete. A
/// run claims that cursor (a lease: one process at a time), asks Apple for `[cursor - margin, now)` in
/// windows of `window`, paging through `paginationToken`, applies every notification of a window, and only
/// then moves the cursor to the window's end. A notification that had arrived is a no-op (deduplicated by its
/// UUID), so the margin, a repeated window after a crash, or two overlapping runs never apply anything twice.
public struct NotificationRecovery: Sendable {
    /// How recovery runs.
    public struct Configuration: Sendable {
        /// Apple keeps notification history for 180 days.
        public static let appleRetention: Duration = .seconds(180 * 86_400)

        /// Time between runs of the recovery service. Default 1 hour.
        public var interval: Duration = .seconds(3_600)
        /// How far before the cursor each run starts again, for notifications Apple lists late. Default 1 hour.
        public var margin: Duration = .seconds(3_600)
        /// The span fetched and committed at once; the cursor moves after each. Default 1 day.
        public var window: Duration = .seconds(86_400)
        /// How far back Apple is asked at most: its 180 days, less a safety margin for clock skew (an older
        /// start is clamped, and the report says so). Default 180 days less 1 hour.
        public var retention: Duration = Configuration.appleRetention - .seconds(3_600)
        /// How long a claimed cursor stays leased to this process; renewed after every page. Default 10 minutes.
        public var lease: Duration = .seconds(600)
        /// Attempts per page when Apple fails in a retryable way (5xx, timeout, 429), with doubling waits from
        /// `retryBase` (or Apple's `Retry-After`, up to 60 s). Default 3.
        public var pageAttempts = 3
        /// The first wait before a page is asked again. Default 1 s.
        public var retryBase: Duration = .seconds(1)
        /// Finish the run at graceful shutdown instead of stopping after the current window (`poll --once`).
        public var finishOnShutdown = false
        /// This process's name in leases.
        public var worker: String

        public init(worker: String) {
            self.worker = worker
        }
    }

    /// The environments Apple keeps a notification history for.
    public static let historyEnvironments: [StoreEnvironment] = [.production, .sandbox]

    public let configuration: Configuration
    let cursors: NotificationHistoryCursors
    /// The apps recovered.
    let catalog: CatalogStore
    let ingestion: Ingestion
    let logger: Logger
    let now: @Sendable () -> Instant

    public init(
        configuration: Configuration, cursors: NotificationHistoryCursors, catalog: CatalogStore,
        ingestion: Ingestion, logger: Logger, now: @escaping @Sendable () -> Instant
    ) {
        self.configuration = configuration
        self.cursors = cursors
        self.catalog = catalog
        self.ingestion = ingestion
        self.logger = logger
        self.now = now
    }

    /// Recovers every app and environment `request` covers, one after the other. A unit that fails is
    /// reported (and logged, and counted), never thrown: the others still run. Throws `RecoveryError` for a
    /// request naming an unknown app or an environment the app does not have.
    public func run(_ request: RecoveryRequest = RecoveryRequest()) async throws -> RecoveryReport {
        var apps = try await catalog.apps()
        if let bundleID = request.bundleID {
            apps = apps.filter { $0.bundleID == bundleID }
            guard !apps.isEmpty else {
                throw RecoveryError(.unknownApp, "no app with bundle id '\(bundleID)' is configured")
            }
        }
        var report = RecoveryReport()
        for app in apps {
            var environments = app.definition.environments.filter { Self.historyEnvironments.contains($0) }
                .sorted { $0.rawValue < $1.rawValue }
            if let environment = request.environment {
                guard environments.contains(environment) else {
                    if request.bundleID != nil {
                        throw RecoveryError(
                            .invalidEnvironment,
                            "\(app.bundleID) does not accept the \(environment.rawValue) environment")
                    }
                    continue
                }
                environments = [environment]
            }
            for environment in environments {
                if Task.isCancelled { break }
                let unit = await recover(app, environment, since: request.since)
                report.units.append(unit)
            }
        }
        return report
    }

    /// One app and environment: claim, fetch window by window, apply, advance, release.
    func recover(_ app: StoredApp, _ environment: StoreEnvironment, since: Instant?) async -> RecoveryReport.Unit {
        var unit = RecoveryReport.Unit(bundleID: app.bundleID, environment: environment, result: .complete)
        let metadata: Logger.Metadata = ["app": "\(app.bundleID)", "environment": "\(environment.rawValue)"]
        let client: AppStoreServerAPIClient
        do {
            guard let configured = try ingestion.apple.serverAPIClient(for: app, environment: environment) else {
                logger.info(
                    "notification recovery skipped: the app has no App Store Server API credentials", metadata: metadata
                )
                unit.result = .skipped
                RecoveryMetrics.run(.skipped)
                return unit
            }
            client = configured
        } catch {
            logger.error(
                "notification recovery failed: the app's Server API key is unusable",
                metadata: metadata.merging(["error": "\(error)"]) { $1 })
            unit.result = .failed
            unit.error = "\(error)"
            RecoveryMetrics.run(.failed)
            return unit
        }
        let worker = configuration.worker
        let claimed: NotificationHistoryCursors.Cursor?
        do {
            claimed = try await cursors.claim(
                appID: app.appID, environment: environment, worker: worker, lease: configuration.lease, now: now())
        } catch {
            logger.error(
                "notification recovery failed: the cursor could not be claimed",
                metadata: metadata.merging(["error": "\(error)"]) { $1 })
            unit.result = .failed
            unit.error = "\(error)"
            RecoveryMetrics.run(.failed)
            return unit
        }
        guard let cursor = claimed else {
            logger.info(
                "notification recovery skipped: another process is recovering this history now", metadata: metadata)
            unit.result = .busy
            RecoveryMetrics.run(.busy)
            return unit
        }
        unit.completeUntil = cursor.completeUntil

        let end = now()
        let earliest = end.adding(duration: .zero - configuration.retention)
        var start = since ?? cursor.completeUntil.map { $0.adding(duration: .zero - configuration.margin) } ?? earliest
        if start < earliest {
            if since != nil || cursor.completeUntil != nil {
                unit.clampedFrom = start
                logger.warning(
                    "notification recovery: the start lies beyond the 180 days Apple keeps; starting at the earliest allowed",
                    metadata: metadata.merging(
                        [
                            "wanted": "\(RFC3339.format(start))",
                            "start": "\(RFC3339.format(earliest))",
                        ]) { $1 })
            }
            start = earliest
        }
        unit.from = start
        unit.to = end

        var failure: (any Error)?
        var windowsDone = 0
        for (from, to) in Self.windows(from: start, to: end, size: configuration.window) {
            if Task.isCancelled || (Task.isShuttingDownGracefully && !configuration.finishOnShutdown) {
                failure = CancellationError()
                break
            }
            do {
                try await recoverWindow(
                    from: from, to: to, client: client, app: app, environment: environment, unit: &unit)
                unit.completeUntil = try await cursors.advance(
                    appID: app.appID, environment: environment, from: from, to: to, worker: worker,
                    lease: configuration.lease, now: now())
                windowsDone += 1
            } catch {
                failure = error
                break
            }
        }
        if let failure {
            unit.result = windowsDone > 0 ? .partial : .failed
            unit.error = Self.describe(failure)
            logger.warning(
                "notification recovery stopped; the cursor keeps what was done and the next run goes on from there",
                metadata: metadata.merging(["error": "\(unit.error ?? "")", "recovered": "\(unit.applied)"]) { $1 })
        } else {
            logger.info(
                "notification recovery done",
                metadata: metadata.merging(["recovered": "\(unit.applied)", "already_had": "\(unit.alreadyHad)"]) { $1 }
            )
        }
        do {
            try await cursors.release(
                appID: app.appID, environment: environment, worker: worker, result: unit.result.rawValue,
                error: unit.error, now: now())
        } catch {
            logger.warning(
                "could not release the notification history lease; it runs out by itself", metadata: metadata)
        }
        RecoveryMetrics.run(unit.result)
        RecoveryMetrics.lag(
            bundleID: app.bundleID, environment: environment, completeUntil: unit.completeUntil, now: now())
        return unit
    }

    /// Fetches every page of `[from, to)` and applies each notification; throws when any is not applied.
    private func recoverWindow(
        from: Instant, to: Instant, client: AppStoreServerAPIClient, app: StoredApp, environment: StoreEnvironment,
        unit: inout RecoveryReport.Unit
    ) async throws {
        let request = NotificationHistoryRequest(
            startDate: from.millisecondsSince1970, endDate: to.millisecondsSince1970)
        var token: String?
        var seenTokens: Set<String> = []
        repeat {
            let page = try await fetchPage(client, request, token: token)
            for item in page.items {
                try await ingest(item, unit: &unit)
            }
            // A page that claims more but repeats a token would loop forever.
            guard page.hasMore, let next = page.paginationToken, seenTokens.insert(next).inserted else { break }
            token = next
            try await cursors.renewLease(
                appID: app.appID, environment: environment, worker: configuration.worker, lease: configuration.lease,
                now: now())
        } while true
    }

    /// Feeds one notification through the ingestion, as if Apple had delivered it now.
    private func ingest(_ item: NotificationHistoryPage.Item, unit: inout RecoveryReport.Unit) async throws {
        let body = try JSONEncoder().encode(["signedPayload": item.signedPayload])
        do {
            switch try await ingestion.receiveNotification(body) {
            case .applied:
                unit.applied += 1
                RecoveryMetrics.notifications("applied", count: 1)
            case .duplicate:
                unit.alreadyHad += 1
                RecoveryMetrics.notifications("already_had", count: 1)
            }
        } catch let error as IngestionError where !error.isTransient {
            // Authentic (Apple's history verified it) but it can never apply: retrying would stall the cursor
            // forever. It is logged by UUID for a person to look at.
            unit.rejected += 1
            RecoveryMetrics.notifications("rejected", count: 1)
            logger.error(
                "a recovered notification cannot be applied",
                metadata: [
                    "notification_uuid": "\(item.notification.notificationUUID ?? "")",
                    "error": "\(error.code.rawValue)",
                ])
        } catch {
            // Applying it failed after it was stored: it is SubLedger's now, and the renewal job applies it with
            // backoff (or quarantines it), so the window need not wait for it. Not stored: the window is not
            // complete, and the error stops the run with the cursor where it was.
            guard let uuid = item.notification.notificationUUID,
                let status = try? await ingestion.store.notificationStatus(notificationID: uuid),
                ["pending", "retry", "quarantined"].contains(status)
            else { throw error }
            unit.deferred += 1
            RecoveryMetrics.notifications("deferred", count: 1)
            logger.warning(
                "a recovered notification is stored but could not be applied yet; the renewal job retries it",
                metadata: ["notification_uuid": "\(uuid)", "error": "\(error)"])
        }
    }

    /// One page, through the circuit breaker, retried with backoff while Apple fails in a retryable way.
    private func fetchPage(
        _ client: AppStoreServerAPIClient, _ request: NotificationHistoryRequest, token: String?
    ) async throws -> NotificationHistoryPage {
        var attempt = 0
        while true {
            attempt += 1
            try ingestion.apple.admitCall()
            do {
                let page = try await AppleCallMetrics.measure(
                    .notificationHistory,
                    classifyError: { ($0 as? AppStoreServerAPIError)?.isRetryable == true ? .retryable : .rejected }
                ) { try await client.notificationHistory(request, paginationToken: token) }
                ingestion.apple.breaker.recordSuccess()
                return page
            } catch let error as AppStoreServerAPIError {
                guard error.isRetryable else {
                    ingestion.apple.breaker.recordSuccess()
                    throw error
                }
                ingestion.apple.breaker.recordFailure()
                guard attempt < configuration.pageAttempts else { throw error }
                try await Task.sleep(for: backoff(attempt: attempt, retryAfter: error.retryAfter))
            }
        }
    }

    private func backoff(attempt: Int, retryAfter: Instant?) -> Duration {
        if let retryAfter {
            let milliseconds = retryAfter.millisecondsSince1970 - now().millisecondsSince1970
            return .milliseconds(min(60_000, max(0, milliseconds)))
        }
        return min(.seconds(60), configuration.retryBase * (1 << min(attempt - 1, 6)))
    }

    /// `[start, end)` cut into consecutive windows of at most `size`.
    static func windows(from start: Instant, to end: Instant, size: Duration) -> [(Instant, Instant)] {
        let step = max(1, size.milliseconds)
        var windows: [(Instant, Instant)] = []
        var from = start
        while from < end {
            let to = Instant(millisecondsSince1970: min(end.millisecondsSince1970, from.millisecondsSince1970 + step))
            windows.append((from, to))
            from = to
        }
        return windows
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case is CancellationError: "stopped by shutdown"
        case let error as AppStoreServerAPIError: "Apple's notification history failed: \(error)"
        case let error as AppleGatewayError: "\(error)"
        case let error as IngestionError: "\(error.code.rawValue): \(error.message)"
        case let error as StoreError: "\(error)"
        default: "\(error)"
        }
    }
}

extension Duration {
    fileprivate var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
