import Foundation
import Logging
import Stripe
import StripeClients
import SubLedgerCore
import SubLedgerStore
import SubLedgerUseCases

/// Stripe's `StoreReconciliation`: each Stripe app's events list (`GET /v1/events`, which Stripe keeps 30 days) read
/// forward from the newest event applied (`EventListReconciliation`), every event not applied yet stored and applied
/// as its webhook would be. The first read of an app takes its newest page.
public typealias StripeEventsReconciliation = EventListReconciliation<StripeEventList>

extension EventListReconciliation where List == StripeEventList {
    /// The events list of every Stripe app, read through `port`'s notifications.
    public init(configuration: Configuration, port: StripePort, cursors: StoreEventCursors, catalog: CatalogStore) {
        self.init(
            configuration: configuration, list: StripeEventList(notifications: port.notifications, catalog: catalog),
            cursors: cursors)
    }
}

/// Stripe's events list: newest first, read back from a cursor with `ending_before`.
public struct StripeEventList: StoreEventList {
    let notifications: StripeNotifications
    let catalog: CatalogStore

    public var store: Store { .stripe }
    public var readsMetric: String { "subledger_stripe_event_reads_total" }
    public var logger: Logger { notifications.logger }
    public var now: @Sendable () -> Instant { notifications.now }

    public func apps() async throws -> [StoredApp] {
        try await catalog.apps(
            holding: .stripe, secrets: [StripeSecrets.names.secretKey, StripeSecrets.names.webhookSecret])
    }

    /// The events after `cursor`, oldest first; the cursor moves to the page's newest. Without a cursor the first
    /// page is the newest, and nothing newer is read in the same pass.
    public func page(of app: StoredApp, after cursor: String?) async throws -> EventListPage<(StripeEvent, Data)> {
        let client = try await notifications.gateway.client(for: app)
        let page: StripeEventPage
        do {
            page = try await client.events(endingBefore: cursor)
        } catch {
            throw IngestionError(error)
        }
        let followed = page.events.reversed().filter {
            StripeNotifications.isIdentifier($0.event.id) && StripeNotifications.isIdentifier($0.event.type)
        }
        return EventListPage(
            events: followed.map { ($0.event, $0.body) }, listed: page.events.count,
            cursor: page.events.first?.event.id, continues: page.hasMore && cursor != nil)
    }

    public func accept(_ event: (StripeEvent, Data), app: StoredApp) async throws -> Bool {
        if case .applied = try await notifications.accept(event.0, body: event.1, app: app) { return true }
        return false
    }
}
