import Logging
import Metrics
import SubLedgerCore
import SubLedgerStore

/// A store's list of its own events, read by `EventListReconciliation`: which apps have one, a page of it after a
/// cursor, and how one of its events is stored and applied (as the store's push would be).
public protocol StoreEventList: Sendable {
    /// One event of a page, ready to be stored and applied.
    associatedtype Event: Sendable

    var store: Store { get }
    /// The counter of the list's reads, by `outcome` (`ok`, `failed`).
    var readsMetric: String { get }
    var logger: Logger { get }
    var now: @Sendable () -> Instant { get }

    /// The apps whose list is read (those holding the store's secrets).
    func apps() async throws -> [StoredApp]

    /// The page of `app`'s events after the event `cursor` names (the first page to read, without one), in the order
    /// they are applied. Throws the ingestion's refusal when the store could not be asked.
    func page(of app: StoredApp, after cursor: String?) async throws -> EventListPage<Event>

    /// Stores and applies `event` of `app` once (an event applied before is a duplicate); whether it was applied now.
    /// Throws the ingestion's refusal; a transient one leaves the event stored for the renewal job.
    func accept(_ event: Event, app: StoredApp) async throws -> Bool
}

/// A page of a store's events list.
public struct EventListPage<Event: Sendable>: Sendable {
    /// The events SubLedger follows, in the order they are applied.
    public var events: [Event]
    /// How many the page listed, followed or not.
    public var listed: Int
    /// The event the cursor moves to once the page is applied; `nil` when the page moved nothing.
    public var cursor: String?
    /// Whether another page follows this one to be read in the same pass.
    public var continues: Bool

    public init(events: [Event], listed: Int, cursor: String?, continues: Bool) {
        self.events = events
        self.listed = listed
        self.cursor = cursor
        self.continues = continues
    }
}

/// Reads each app's events list of one store forward from where the last read stopped, and stores and applies every
/// event not applied yet: the pushes the store dropped, gave up on, or that never reached SubLedger. The store's
/// `StoreReconciliation`, run by `poll`'s `ReconciliationPoller` every minute; each app's list is read when its last
/// read is `interval` old. An event found here is the push's event (the same id), so one that arrived both ways is
/// applied once. Each app's cursor (`StoreEventCursors`) moves after each page, so a read that stops goes on from
/// there.
public struct EventListReconciliation<List: StoreEventList>: StoreReconciliation {
    public struct Configuration: Sendable {
        /// How often each app's list is read. Default 5 minutes.
        public var interval: Duration = .seconds(300)
        /// How long an app's cursor stays leased to this process. Default 5 minutes.
        public var lease: Duration = .seconds(300)
        /// Pages read per app per pass. Default 50.
        public var maximumPages = 50
        /// This process's name in leases.
        public var worker: String

        public init(worker: String) {
            self.worker = worker
        }
    }

    /// What one pass did.
    public struct CycleReport: Sendable, Hashable, CustomStringConvertible {
        public var store: Store
        public var apps = 0
        public var pages = 0
        public var listed = 0
        public var applied = 0
        public var failed = 0

        public init(store: Store) {
            self.store = store
        }

        public var description: String {
            "\(store.rawValue) events: apps \(apps), pages \(pages), listed \(listed), applied \(applied), failed \(failed)"
        }
    }

    public let configuration: Configuration
    public let list: List
    let cursors: StoreEventCursors

    public init(configuration: Configuration, list: List, cursors: StoreEventCursors) {
        self.configuration = configuration
        self.list = list
        self.cursors = cursors
    }

    public var store: Store { list.store }

    public var interval: Duration { .seconds(60) }

    public func reconcile() async throws -> ReconciliationOutcome {
        let report = try await runCycle()
        return ReconciliationOutcome(summary: "\(report)", isWorthLogging: report.applied > 0 || report.failed > 0)
    }

    /// Reads the list of every app whose last read is at least `interval` old.
    public func runCycle() async throws -> CycleReport {
        var report = CycleReport(store: list.store)
        let now = list.now
        for app in try await list.apps() {
            guard
                let cursor = try await cursors.claim(
                    appID: app.appID, every: configuration.interval, lease: configuration.lease,
                    worker: configuration.worker, now: now())
            else { continue }
            report.apps += 1
            do {
                try await read(app, from: cursor, report: &report)
                try await cursors.release(appID: app.appID, error: nil, worker: configuration.worker, now: now())
                Counter(label: list.readsMetric, dimensions: [("outcome", "ok")]).increment()
            } catch {
                report.failed += 1
                list.logger.warning(
                    "store events could not be read",
                    metadata: ["store": "\(list.store.rawValue)", "bundle_id": "\(app.bundleID)", "error": "\(error)"])
                try? await cursors.release(
                    appID: app.appID, error: "\(error)", worker: configuration.worker, now: now())
                Counter(label: list.readsMetric, dimensions: [("outcome", "failed")]).increment()
            }
        }
        return report
    }

    /// Reads `app`'s events after `cursor`, applying each and moving the cursor after each page. An event that cannot
    /// be applied now (the store unavailable) is kept stored for the renewal job, and the read goes on.
    func read(_ app: StoredApp, from cursor: StoreEventCursors.Cursor, report: inout CycleReport) async throws {
        var after = cursor.lastEventID
        for _ in 0..<max(1, configuration.maximumPages) {
            let page = try await list.page(of: app, after: after)
            report.pages += 1
            report.listed += page.listed
            for event in page.events {
                do {
                    if try await list.accept(event, app: app) { report.applied += 1 }
                } catch let refusal as IngestionError where refusal.isTransient {
                    report.failed += 1
                }
            }
            guard let next = page.cursor, next != after else { return }
            guard
                try await cursors.advance(
                    appID: app.appID, to: next, events: page.listed, worker: configuration.worker, now: list.now())
            else { return }
            guard page.continues else { return }
            after = next
        }
    }
}
