import GooglePlay
import GooglePlayClients
import Logging
import Metrics
import SubLedgerCore
import SubLedgerStore
import SubLedgerUseCases

/// Reads each Google Play app's voided purchases (`purchases.voidedpurchases.list`, subscriptions and quantity-based
/// partial refunds included) and revokes what they granted: the refunds, chargebacks and revocations whose
/// notifications were dropped, or arrived before SubLedger could apply them. Google Play's `StoreReconciliation`,
/// run by `poll`'s `ReconciliationPoller` every minute; each app's list is read when its last read is `interval` old.
///
/// Each app's place in the list is kept (`google_play_voided_cursors`): the voided time before which everything was
/// applied, and, while a list spans pages, the window and the next page's continuation token, recorded after each
/// page is applied, so a poll that stops goes on with the next page. Windows overlap by `overlap` (a purchase voided
/// just before a window closed may be listed late); applying a void twice changes nothing.
public struct GooglePlayVoidedPurchases: StoreReconciliation {
    /// How the lists are read.
    public struct Configuration: Sendable {
        /// How often each app's list is read. Default 10 minutes.
        public var interval: Duration = .seconds(600)
        /// How far back each window starts before the last one's end. Default 1 hour.
        public var overlap: Duration = .seconds(3_600)
        /// How long an app's cursor stays leased to this process. Default 5 minutes.
        public var lease: Duration = .seconds(300)
        /// Voided purchases per page (Google allows 1 to 1000). Default 1000.
        public var pageSize = 1000
        /// Pages read per app per cycle. Default 100.
        public var maximumPages = 100
        /// This process's name in leases.
        public var worker: String

        public init(worker: String) {
            self.worker = worker
        }
    }

    /// What one cycle did.
    public struct CycleReport: Sendable, Hashable, CustomStringConvertible {
        public var apps = 0
        public var pages = 0
        public var listed = 0
        public var revoked = 0
        public var failed = 0

        public init() {}

        public var description: String {
            "google play voided purchases: apps \(apps), pages \(pages), listed \(listed), revoked \(revoked), "
                + "failed \(failed)"
        }
    }

    let configuration: Configuration
    let ingestion: GooglePlayIngestion
    /// Where each app's place in the list (its cursor) is kept.
    let cursors: GooglePlayRecords
    let catalog: CatalogStore
    let gateway: GooglePlayGateway
    let logger: Logger
    let now: @Sendable () -> Instant

    public init(
        configuration: Configuration, ingestion: GooglePlayIngestion, store: GooglePlayRecords, catalog: CatalogStore,
        gateway: GooglePlayGateway, logger: Logger, now: @escaping @Sendable () -> Instant
    ) {
        self.configuration = configuration
        self.ingestion = ingestion
        self.cursors = store
        self.catalog = catalog
        self.gateway = gateway
        self.logger = logger
        self.now = now
    }

    public var store: Store { .googlePlay }

    /// Each pass looks for the apps whose list is due (`Configuration.interval`), so an app added to the catalog,
    /// or one whose read failed, waits a minute at most.
    public var interval: Duration { .seconds(60) }

    public func reconcile() async throws -> ReconciliationOutcome {
        let report = try await runCycle()
        return ReconciliationOutcome(summary: "\(report)", isWorthLogging: report.pages > 0 || report.failed > 0)
    }

    /// Reads the list of every Google Play app whose last read is at least `interval` old.
    public func runCycle() async throws -> CycleReport {
        var report = CycleReport()
        for app in try await catalog.apps()
        where app.definition.googlePlay != nil && app.googleServiceAccountKey != nil {
            guard
                let cursor = try await cursors.claimVoidedCursor(
                    appID: app.appID, every: configuration.interval, lease: configuration.lease,
                    worker: configuration.worker, now: now())
            else { continue }
            report.apps += 1
            do {
                try await poll(app, from: cursor, report: &report)
                try await cursors.releaseVoidedCursor(
                    appID: app.appID, error: nil, worker: configuration.worker, now: now())
                Counter(label: "subledger_google_play_voided_polls_total", dimensions: [("outcome", "ok")]).increment()
            } catch {
                report.failed += 1
                // Google no longer takes the continuation token (too old): the window is read again from its start.
                let restart = (error as? GooglePlayAPIError)?.code == .invalidArgument && cursor.window != nil
                logger.warning(
                    "google play voided purchases could not be read",
                    metadata: ["bundle_id": "\(app.bundleID)", "error": "\(error)"])
                try? await cursors.releaseVoidedCursor(
                    appID: app.appID, error: "\(error)", restartWindow: restart, worker: configuration.worker,
                    now: now())
                Counter(label: "subledger_google_play_voided_polls_total", dimensions: [("outcome", "failed")])
                    .increment()
            }
        }
        return report
    }

    /// Reads `app`'s list from where `cursor` stands, applying and recording each page. A window ends at this
    /// process's now, but the list is asked with no end time (Google lists up to its own now and refuses an end
    /// past it); the next window starts `overlap` before this one's end, which covers a clock ahead of Google's.
    func poll(_ app: StoredApp, from cursor: GooglePlayRecords.VoidedCursor, report: inout CycleReport) async throws {
        let (client, packageName) = try await gateway.client(for: app)
        let current = now()
        // Google lists 30 days back and no later than now.
        let oldest = current.adding(milliseconds: -29 * 86_400_000)
        var window: (start: Instant, end: Instant)
        var pageToken: String?
        if let open = cursor.window {
            window = (open.start, open.end)
            pageToken = open.pageToken
        } else {
            let overlap = Int64(configuration.overlap.components.seconds) * 1000
            let start = cursor.polledThrough.map { max(oldest, $0.adding(milliseconds: -overlap)) } ?? oldest
            window = (min(start, current), current)
        }
        for _ in 0..<max(1, configuration.maximumPages) {
            let page: VoidedPurchasesListResponse
            page = try await client.voidedPurchases(
                packageName: packageName,
                query: .init(
                    startTime: window.start, includeQuantityBasedPartialRefund: true,
                    maxResults: configuration.pageSize),
                pageToken: pageToken)
            let voided = page.voidedPurchases ?? []
            let revoked = try await ingestion.applyVoided(voided, app: app)
            report.pages += 1
            report.listed += voided.count
            report.revoked += revoked
            Counter(label: "subledger_google_play_voided_purchases_total", dimensions: [("result", "listed")])
                .increment(by: voided.count)
            Counter(label: "subledger_google_play_voided_purchases_total", dimensions: [("result", "revoked")])
                .increment(by: revoked)
            var next = page.tokenPagination?.nextPageToken
            if next?.isEmpty == true || next == pageToken || (next?.utf8.count ?? 0) > 4096 { next = nil }
            guard
                try await cursors.recordVoidedPage(
                    appID: app.appID, start: window.start, end: window.end, nextPageToken: next,
                    voided: voided.count, worker: configuration.worker, now: now())
            else { return }
            guard let next else { return }
            pageToken = next
        }
    }
}
