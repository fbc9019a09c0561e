import Foundation
import Logging
import SubLedgerCore
import SubLedgerStore

/// One event a store pushed or listed, as the ledger keeps it: its id (unique at the store), its type and when the
/// store says it happened.
public struct ReadBackEvent: Sendable, Hashable {
    public var id: String
    public var type: String
    public var occurredAt: Instant?

    public init(id: String, type: String, occurredAt: Instant?) {
        self.id = id
        self.type = type
        self.occurredAt = occurredAt
    }
}

/// The path of the pushes of a store that are a hint, not a statement (Stripe's webhook events, Paddle's
/// notifications), written once for every such store: each authentic event is stored as received, once per event id
/// (`<store>:<id>`, format `<store>_event`), then the purchase it names is read back from the store and applied with
/// the stored row, marked applied in the same transaction. A failure is recorded on the row: the store unavailable
/// is retried with backoff (the renewal job claims the row again); an object the store does not have is final, and
/// the event counts as applied.
public struct ReadBackPushes: Sendable {
    /// The store whose events these are.
    public let seller: Store
    let ledger: LedgerStore
    let logger: Logger
    let now: @Sendable () -> Instant

    public init(seller: Store, ledger: LedgerStore, logger: Logger, now: @escaping @Sendable () -> Instant) {
        self.seller = seller
        self.ledger = ledger
        self.logger = logger
        self.now = now
    }

    /// Stores `event` of `app` (its `body` as received) once per event id and applies what `readBack` reads of it; an
    /// event applied before is a duplicate.
    public func accept(
        _ event: ReadBackEvent, body: Data, app: StoredApp,
        readBack: @Sendable () async throws -> LedgerInput
    ) async throws -> PushOutcome {
        let record = LedgerStore.PushedNotificationRecord(
            notificationID: "\(seller.rawValue):\(event.id)", format: .storeEvent(seller), notificationType: event.type,
            body: String(decoding: body, as: UTF8.self), eventTime: event.occurredAt)
        let stored = try await IngestionStep.store.traced(app: app.bundleID) {
            try await ledger.storePushedNotification(record, app: app)
        }
        if stored.alreadyApplied { return .duplicate }
        return try await apply(row: stored.id, event, app: app, readBack: readBack)
    }

    /// Reads back what the stored event of row `id` leads to and applies it with the row.
    public func apply(
        row id: Int64, _ event: ReadBackEvent, app: StoredApp,
        readBack: @Sendable () async throws -> LedgerInput
    ) async throws -> PushOutcome {
        let input: LedgerInput
        do {
            input = try await IngestionStep.verify.traced(app: app.bundleID) { try await readBack() }
        } catch let refusal as IngestionError {
            try await ledger.markNotification(
                id, failed: refusal.code.rawValue + ": " + refusal.message, retryable: refusal.isTransient, now: now())
            if refusal.isTransient { throw refusal }
            logger.warning(
                "a \(seller.displayName) event leads to nothing \(seller.displayName) can show",
                metadata: ["notification": "\(id)", "event": "\(event.id)", "reason": "\(refusal)"])
            return .applied(notificationType: event.type)
        }
        do {
            let outcome = try await IngestionStep.apply.traced(app: app.bundleID) {
                try await ledger.applyStoredNotification(id, input, app: app, now: now())
            }
            switch outcome {
            case .duplicate:
                return .duplicate
            case .applied(_, let applied):
                LedgerMetrics.record(applied)
                return .applied(notificationType: event.type)
            }
        } catch {
            try await ledger.markNotification(id, failed: "\(error)", retryable: true, now: now())
            throw error
        }
    }

    /// Marks the stored row `id`, whose body cannot be read again, as failed for good, and throws the refusal.
    public func unreadable(row id: Int64) async throws -> Never {
        try await ledger.markNotification(id, failed: "unreadable stored event", retryable: false, now: now())
        throw IngestionError(.malformedNotification, "the stored event cannot be read again")
    }
}
