import Foundation
import Logging
import Paddle
import PaddleClients
import SubLedgerCore
import SubLedgerStore
import SubLedgerUseCases

/// Paddle's notifications: authenticated by the `Paddle-Signature` header against the endpoint secret key of an
/// app's notification setting, stored as received (once per event id), then applied from the subscription or
/// transaction read back from the Paddle API. An event is a hint: the purchase's current state, not the event's
/// snapshot, is what the ledger applies, so duplicated, reordered or dropped notifications leave the same state.
public struct PaddleNotifications: Sendable {
    let store: LedgerStore
    let gateway: PaddleGateway
    /// The apps selling through Paddle, whose secret keys a push is checked against.
    let paddleApps: @Sendable () async throws -> [StoredApp]
    let logger: Logger
    let now: @Sendable () -> Instant
    /// The clock signatures are checked against: Paddle signs with the time of day, so it is the system's even where
    /// `now` (the ledger's clock) is a test's.
    let signatureClock: @Sendable () -> Instant

    /// The longest notification accepted (Paddle's are a few KiB; a transaction with many items some tens).
    static let maximumBodyBytes = 512 * 1024
    /// How far the signing time may be from the receiver's clock, in seconds. Paddle's SDKs allow 5; a little more
    /// here lets a busy server's queue not refuse what Paddle signed a moment before.
    static let signatureTolerance: Int64 = 30

    public init(
        store: LedgerStore, gateway: PaddleGateway, paddleApps: @escaping @Sendable () async throws -> [StoredApp],
        logger: Logger, now: @escaping @Sendable () -> Instant,
        signatureClock: @escaping @Sendable () -> Instant = { Instant.systemNow() }
    ) {
        self.store = store
        self.gateway = gateway
        self.paddleApps = paddleApps
        self.logger = logger
        self.now = now
        self.signatureClock = signatureClock
    }

    /// Authenticates, stores and applies one notification. Refusals: `invalid_signature` (401) for a signature that
    /// verifies under no app's secret key, whatever the body holds; `malformed_json` (400) for a signed body that is
    /// not a notification; Paddle unavailable (503, `store_unavailable`): the notification is stored and applied
    /// later by the renewal job, or by Paddle's redelivery. Traced like every store's push (`IngestionStep`).
    public func receive(body: Data, signature: String?) async throws -> PushOutcome {
        // The signature first, over the bytes as received: a body nobody signed is not parsed at all.
        let app = try await IngestionStep.verify.traced(app: nil) {
            try await authenticate(body: body, signature: signature)
        }
        guard body.count <= Self.maximumBodyBytes, let notification = try? PaddleNotification(body: body) else {
            throw IngestionError(.malformedNotification, "the body is not a Paddle notification")
        }
        return try await accept(notification.event, body: body, app: app)
    }

    /// Stores an authentic event of `app` (a notification's, or one the events list gave) once per event id and
    /// applies it; an event applied before is a duplicate.
    func accept(_ event: PaddleEvent, body: Data, app: StoredApp) async throws -> PushOutcome {
        try await pushes.accept(Self.readBackEvent(event), body: body, app: app) {
            try await self.input(for: event, app: app)
        }
    }

    /// The event as the ledger keeps it.
    static func readBackEvent(_ event: PaddleEvent) -> ReadBackEvent {
        ReadBackEvent(id: event.eventID, type: event.eventType.rawValue, occurredAt: event.occurredAt)
    }

    /// Its pushes' path, shared by every store whose pushes are read back (`ReadBackPushes`).
    var pushes: ReadBackPushes { ReadBackPushes(seller: .paddle, ledger: store, logger: logger, now: now) }

    /// Applies a stored event the renewal job claimed (its first attempt failed, or the process died).
    public func applyStored(_ pending: PollQueue.PendingNotification, app: StoredApp) async throws -> PushOutcome {
        guard let event = Self.event(stored: Data(pending.body.utf8)) else {
            try await pushes.unreadable(row: pending.rowID)
        }
        return try await apply(pending.rowID, event, app: app)
    }

    /// A stored body: a notification's (with its `notification_id`) or an event the events list gave.
    static func event(stored body: Data) -> PaddleEvent? {
        if let notification = try? PaddleNotification(body: body) { return notification.event }
        return try? PaddleDecoding.decode(PaddleEvent.self, from: body)
    }

    /// The app whose notification setting's secret key the signature verifies under (the first by bundle id: each
    /// app's setting has its own key).
    func authenticate(body: Data, signature: String?) async throws -> StoredApp {
        let apps = try await paddleApps()
        var refusal = PaddleSignatureError.noMatchingSignature
        for app in apps {
            guard let secret = app.paddle?.webhookSecret else { continue }
            do {
                try PaddleWebhookSignature.verify(
                    header: signature, body: body, secretKeys: [secret], now: signatureClock(),
                    tolerance: Self.signatureTolerance)
                return app
            } catch {
                refusal = error
                if error != .noMatchingSignature { break }
            }
        }
        throw IngestionError(.invalidSignature, "the Paddle-Signature did not verify: \(refusal)")
    }

    /// Reads back what the event leads to and applies it with the stored row (`ReadBackPushes.apply`).
    func apply(_ id: Int64, _ event: PaddleEvent, app: StoredApp) async throws -> PushOutcome {
        try await pushes.apply(row: id, Self.readBackEvent(event), app: app) {
            try await self.input(for: event, app: app)
        }
    }

    /// The subscription or one-time transaction the event is about, read back now, as the ledger's input (no
    /// submitter: the order named in its `custom_data`, or the chain's owner, decides the account). Empty for an event
    /// about nothing SubLedger follows (a customer, a product), for a purchase SubLedger did not start, and for a
    /// purchase another app sold.
    func input(for event: PaddleEvent, app: StoredApp) async throws -> LedgerInput {
        let client = try await gateway.client(for: app)
        let environment = app.paddle?.environment ?? .production
        let empty = LedgerInput(
            kind: .notification, bundleID: app.bundleID, environment: environment, submitter: nil, transactions: [],
            renewalInfo: [], observedAt: now())
        let readBack = PaddleReadBack(client: client, environment: environment, logger: logger)
        if let subscription = event.subscriptionID {
            return try await readBack.input(
                subscription: subscription, kind: .notification, app: app, observedAt: now()) ?? empty
        }
        if let transaction = event.transactionID {
            return try await readBack.input(
                transaction: transaction, kind: .notification, app: app, observedAt: now()) ?? empty
        }
        return empty
    }
}
