import Logging
import Metrics
import Paddle
import PaddleClients
import SubLedgerCore
import SubLedgerStore
import SubLedgerUseCases

/// Reads each Paddle app's events list (`GET /events`, oldest first, which Paddle keeps 90 days) forward from where the
/// last read stopped, and stores and applies every event not applied yet: the notifications Paddle gave up on, or
/// that never reached SubLedger. Paddle's `StoreReconciliation`, run by `poll`'s `ReconciliationPoller` every minute;
/// each app's list is read when its last read is `interval` old.
///
/// An event found here is the notification's event (the same id), so one that arrived both ways is applied once. Each
/// app's cursor (`paddle_event_cursors`) is the newest event read; it moves after each page, so a read that stops goes
/// on from there. The first read of an app starts at the oldest event Paddle keeps.
public struct PaddleEventsReconciliation: StoreReconciliation {
    public struct Configuration: Sendable {
        /// How often each app's list is read. Default 5 minutes.
        public var interval: Duration = .seconds(300)
        /// How long an app's cursor stays leased to this process. Default 5 minutes.
        public var lease: Duration = .seconds(300)
        /// Pages (of 200 events) read per app per pass. Default 50.
        public var maximumPages = 50
        /// This process's name in leases.
        public var worker: String

        public init(worker: String) {
            self.worker = worker
        }
    }

    /// What one pass did.
    public struct CycleReport: Sendable, Hashable, CustomStringConvertible {
        public var apps = 0
        public var pages = 0
        public var listed = 0
        public var applied = 0
        public var failed = 0

        public init() {}

        public var description: String {
            "paddle events: apps \(apps), pages \(pages), listed \(listed), applied \(applied), failed \(failed)"
        }
    }

    let configuration: Configuration
    let notifications: PaddleNotifications
    let cursors: PaddleEventCursors
    let catalog: CatalogStore

    public init(
        configuration: Configuration, port: PaddlePort, cursors: PaddleEventCursors, catalog: CatalogStore
    ) {
        self.configuration = configuration
        self.notifications = port.notifications
        self.cursors = cursors
        self.catalog = catalog
    }

    public var store: Store { .paddle }

    public var interval: Duration { .seconds(60) }

    public func reconcile() async throws -> ReconciliationOutcome {
        let report = try await runCycle()
        return ReconciliationOutcome(summary: "\(report)", isWorthLogging: report.applied > 0 || report.failed > 0)
    }

    /// Reads the list of every Paddle app whose last read is at least `interval` old.
    public func runCycle() async throws -> CycleReport {
        var report = CycleReport()
        let now = notifications.now
        for app in try await catalog.apps(
            holding: .paddle, secrets: [PaddleSecrets.names.apiKey, PaddleSecrets.names.webhookSecret])
        {
            guard
                let cursor = try await cursors.claim(
                    appID: app.appID, every: configuration.interval, lease: configuration.lease,
                    worker: configuration.worker, now: now())
            else { continue }
            report.apps += 1
            do {
                try await read(app, from: cursor, report: &report)
                try await cursors.release(appID: app.appID, error: nil, worker: configuration.worker, now: now())
                Counter(label: "subledger_paddle_event_reads_total", dimensions: [("outcome", "ok")]).increment()
            } catch {
                report.failed += 1
                notifications.logger.warning(
                    "paddle events could not be read", metadata: ["bundle_id": "\(app.bundleID)", "error": "\(error)"])
                try? await cursors.release(
                    appID: app.appID, error: "\(error)", worker: configuration.worker, now: now())
                Counter(label: "subledger_paddle_event_reads_total", dimensions: [("outcome", "failed")]).increment()
            }
        }
        return report
    }

    /// Reads `app`'s events after `cursor`, oldest first, applying each SubLedger follows and moving the cursor after
    /// each page. An event that cannot be applied now (Paddle unavailable) is kept stored for the renewal job, and the
    /// read goes on; an event that cannot be read is skipped.
    func read(_ app: StoredApp, from cursor: PaddleEventCursors.Cursor, report: inout CycleReport) async throws {
        let client = try await notifications.gateway.client(for: app)
        var after = cursor.lastEventID
        for _ in 0..<max(1, configuration.maximumPages) {
            let page: PaddleEventPage
            do {
                page = try await client.events(after: after, perPage: PaddleAPI.maximumPerPage)
            } catch {
                throw IngestionError(error)
            }
            report.pages += 1
            report.listed += page.entries.count
            for entry in page.entries {
                guard case .success(let event) = entry.event, event.eventType.isFollowed else { continue }
                do {
                    if case .applied = try await notifications.accept(event, body: entry.body, app: app) {
                        report.applied += 1
                    }
                } catch let refusal as IngestionError where refusal.isTransient {
                    report.failed += 1
                }
            }
            guard let newest = page.nextAfter, newest != after, !page.entries.isEmpty else { return }
            guard
                try await cursors.advance(
                    appID: app.appID, to: newest, events: page.entries.count, worker: configuration.worker,
                    now: notifications.now())
            else { return }
            guard page.hasMore else { return }
            after = newest
        }
    }
}
