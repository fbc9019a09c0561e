import Foundation
import Logging
import Paddle
import PaddleClients
import SubLedgerCore
import SubLedgerStore
import SubLedgerUseCases

/// Paddle's `StoreReconciliation`: each Paddle app's events list (`GET /events`, oldest first, which Paddle keeps 90
/// days) read forward from the newest event read (`EventListReconciliation`), every event SubLedger follows and has
/// not applied stored and applied as its notification would be. The first read of an app starts at the oldest event
/// Paddle keeps; an event that cannot be read is skipped.
public typealias PaddleEventsReconciliation = EventListReconciliation<PaddleEventList>

extension EventListReconciliation where List == PaddleEventList {
    /// The events list of every Paddle app, read through `port`'s notifications.
    public init(configuration: Configuration, port: PaddlePort, cursors: StoreEventCursors, catalog: CatalogStore) {
        self.init(
            configuration: configuration, list: PaddleEventList(notifications: port.notifications, catalog: catalog),
            cursors: cursors)
    }
}

/// Paddle's events list: oldest first, read from a cursor with `after`.
public struct PaddleEventList: StoreEventList {
    let notifications: PaddleNotifications
    let catalog: CatalogStore

    public var store: Store { .paddle }
    public var readsMetric: String { "subledger_paddle_event_reads_total" }
    public var logger: Logger { notifications.logger }
    public var now: @Sendable () -> Instant { notifications.now }

    public func apps() async throws -> [StoredApp] {
        try await catalog.apps(
            holding: .paddle, secrets: [PaddleSecrets.names.apiKey, PaddleSecrets.names.webhookSecret])
    }

    public func page(of app: StoredApp, after cursor: String?) async throws -> EventListPage<(PaddleEvent, Data)> {
        let client = try await notifications.gateway.client(for: app)
        let page: PaddleEventPage
        do {
            page = try await client.events(after: cursor, perPage: PaddleAPI.maximumPerPage)
        } catch {
            throw IngestionError(error)
        }
        let followed = page.entries.compactMap { entry -> (PaddleEvent, Data)? in
            guard case .success(let event) = entry.event, event.eventType.isFollowed else { return nil }
            return (event, entry.body)
        }
        return EventListPage(
            events: followed, listed: page.entries.count, cursor: page.entries.isEmpty ? nil : page.nextAfter,
            continues: page.hasMore)
    }

    public func accept(_ event: (PaddleEvent, Data), app: StoredApp) async throws -> Bool {
        if case .applied = try await notifications.accept(event.0, body: event.1, app: app) { return true }
        return false
    }
}
