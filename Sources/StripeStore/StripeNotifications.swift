import Foundation
import Logging
import Stripe
import StripeClients
import SubLedgerCore
import SubLedgerStore
import SubLedgerUseCases

/// Stripe's webhooks: authenticated by the `Stripe-Signature` header against the signing secret of an app's endpoint,
/// stored as received (once per event id), then applied from the subscription or one-time payment read back from the
/// Stripe API. An event is a hint: events arrive twice and out of order, and the purchase's current state, not the
/// event's snapshot, is what the ledger applies, so duplicated, reordered or dropped events leave the same state.
public struct StripeNotifications: Sendable {
    let store: LedgerStore
    let gateway: StripeGateway
    /// The apps selling through Stripe, whose webhook secrets a push is checked against.
    let stripeApps: @Sendable () async throws -> [StoredApp]
    let logger: Logger
    let now: @Sendable () -> Instant
    /// The clock signatures are checked against: Stripe signs with the time of day, so it is the system's even where
    /// `now` (the ledger's clock) is a test's.
    let signatureClock: @Sendable () -> Instant

    /// The longest event accepted (Stripe's events are a few KiB; a subscription with many items some tens).
    static let maximumBodyBytes = 512 * 1024
    /// The longest event id and type accepted.
    static let maximumIDLength = 255

    public init(
        store: LedgerStore, gateway: StripeGateway, stripeApps: @escaping @Sendable () async throws -> [StoredApp],
        logger: Logger, now: @escaping @Sendable () -> Instant,
        signatureClock: @escaping @Sendable () -> Instant = { Instant.systemNow() }
    ) {
        self.store = store
        self.gateway = gateway
        self.stripeApps = stripeApps
        self.logger = logger
        self.now = now
        self.signatureClock = signatureClock
    }

    /// Authenticates, stores and applies one webhook. Refusals: `invalid_signature` (401) for a signature that
    /// verifies under no app's signing secret, whatever the body holds; `malformed_json` (400) for a signed body that
    /// is not an event; Stripe unavailable (503): the event is stored and applied later by the renewal job, or by
    /// Stripe's redelivery. Traced as an App Store notification is (`IngestionStep`): `verify` (the signature, before
    /// the app is known), `store`, then in `apply(_:_:app:)` `verify` (the purchase read back from Stripe) and `apply`.
    public func receive(body: Data, signature: String?) async throws -> PushOutcome {
        // The signature first, over the bytes as received: a body nobody signed is not parsed at all, so what it
        // holds cannot change the answer (or the work done) for a sender without the secret.
        let app = try await IngestionStep.verify.traced(app: nil) {
            try await authenticate(body: body, signature: signature)
        }
        guard body.count <= Self.maximumBodyBytes, let event = try? JSONDecoder().decode(StripeEvent.self, from: body),
            Self.isIdentifier(event.id), Self.isIdentifier(event.type)
        else {
            throw IngestionError(.malformedNotification, "the body is not a Stripe event")
        }
        return try await accept(event, body: body, app: app)
    }

    /// Stores an authentic event of `app` (a webhook's, or one the events list gave) once per id and applies it;
    /// an event applied before is a duplicate.
    func accept(_ event: StripeEvent, body: Data, app: StoredApp) async throws -> PushOutcome {
        try await pushes.accept(Self.readBackEvent(event), body: body, app: app) {
            try await self.input(for: event, app: app)
        }
    }

    /// The event as the ledger keeps it.
    static func readBackEvent(_ event: StripeEvent) -> ReadBackEvent {
        ReadBackEvent(id: event.id, type: event.type, occurredAt: event.createdAt)
    }

    /// Its pushes' path, shared by every store whose pushes are read back (`ReadBackPushes`).
    var pushes: ReadBackPushes { ReadBackPushes(seller: .stripe, ledger: store, logger: logger, now: now) }

    /// Applies a stored event the renewal job claimed (its first attempt failed, or the process died).
    public func applyStored(_ pending: PollQueue.PendingNotification, app: StoredApp) async throws -> PushOutcome {
        guard let event = try? JSONDecoder().decode(StripeEvent.self, from: Data(pending.body.utf8)) else {
            try await pushes.unreadable(row: pending.rowID)
        }
        return try await apply(pending.rowID, event, app: app)
    }

    /// The app whose webhook signing secret the signature verifies under (the first by bundle id: each app's
    /// endpoint has its own secret).
    func authenticate(body: Data, signature: String?) async throws -> StoredApp {
        let apps = try await stripeApps()
        var refusal = StripeSignatureError.noMatchingSignature
        for app in apps {
            guard let secret = app.stripe?.webhookSecret else { continue }
            do {
                try StripeSignature.verify(header: signature, body: body, secrets: [secret], now: signatureClock())
                return app
            } catch {
                refusal = error
                if error != .noMatchingSignature { break }
            }
        }
        throw IngestionError(.invalidSignature, "the Stripe-Signature did not verify: \(refusal.code)")
    }

    /// Reads back what the event leads to and applies it with the stored row (`ReadBackPushes.apply`).
    func apply(_ id: Int64, _ event: StripeEvent, app: StoredApp) async throws -> PushOutcome {
        try await pushes.apply(row: id, Self.readBackEvent(event), app: app) {
            try await self.input(for: event, app: app)
        }
    }

    /// The subscription or one-time payment the event is about, read back now, as the ledger's input (no submitter:
    /// the order named in its metadata, or the chain's owner, decides the account). A payment intent that paid no
    /// invoice is a one-time payment. Empty for an event about nothing SubLedger follows, for a payment SubLedger did
    /// not start, and for a purchase another app sold.
    func input(for event: StripeEvent, app: StoredApp) async throws -> LedgerInput {
        let environment: StoreEnvironment = event.livemode ? .production : .sandbox
        let empty = LedgerInput(
            kind: .notification, bundleID: app.bundleID, environment: environment, submitter: nil, transactions: [],
            renewalInfo: [], observedAt: now())
        let client = try await gateway.client(for: app)
        let subscriptionID: String?
        var oneTimePayment: String?
        do {
            switch event.subject {
            case .subscription(let id): subscriptionID = id
            case .invoice(let id): subscriptionID = try await client.invoice(id).subscriptionID
            case .paymentIntent(let id):
                subscriptionID = try await client.subscription(paidBy: id)
                if subscriptionID == nil { oneTimePayment = id }
            case .none: subscriptionID = nil
            }
        } catch {
            throw IngestionError(error)
        }
        let readBack = StripeReadBack(client: client, logger: logger)
        if let oneTimePayment {
            return try await readBack.input(
                paymentIntent: oneTimePayment, kind: .notification, app: app, observedAt: now()) ?? empty
        }
        guard let subscriptionID else { return empty }
        return try await readBack.input(
            subscription: subscriptionID, kind: .notification, app: app, observedAt: now()) ?? empty
    }

    static func isIdentifier(_ text: String) -> Bool {
        (1...maximumIDLength).contains(text.utf8.count) && text.utf8.allSatisfy { (0x21...0x7E).contains($0) }
    }
}

/// A subscription or a one-time payment read back from Stripe and turned into the ledger's input.
struct StripeReadBack: Sendable {
    let client: StripeAPI
    let logger: Logger

    /// The subscription's state as the ledger's input, or `nil` when it was sold for another app (its metadata
    /// names another bundle id).
    func input(subscription id: String, kind: LedgerInput.Kind, app: StoredApp, observedAt: Instant) async throws
        -> LedgerInput?
    {
        let reading: StripeSubscriptionReading
        do {
            reading = try await client.reading(ofSubscription: id)
        } catch {
            throw IngestionError(error)
        }
        if let named = reading.bundleID, named != app.bundleID {
            logger.warning(
                "a Stripe subscription names another app in its metadata",
                metadata: ["subscription": "\(id)", "app": "\(app.bundleID)", "named": "\(named)"])
            return nil
        }
        let observation: (transactions: [Transaction], renewalInfo: RenewalInfo)
        do {
            observation = try reading.observation(observedAt: observedAt)
        } catch {
            throw IngestionError(.invalidNotificationPayload, "Stripe's subscription cannot be read: \(error)")
        }
        // Products the catalog does not sell through Stripe are not the ledger's.
        let sold = observation.transactions.filter { app.definition.product($0.productID)?.store == .stripe }
        return LedgerInput(
            kind: kind, bundleID: app.bundleID, environment: observation.renewalInfo.environment, submitter: nil,
            transactions: sold.map {
                var transaction = $0
                transaction.bundleID = app.bundleID
                return transaction
            },
            renewalInfo: sold.isEmpty ? [] : [observation.renewalInfo], observedAt: observedAt)
    }
    /// The one-time payment's state as the ledger's input: one transaction once it succeeded, none before. `nil`
    /// when it is not the ledger's: SubLedger did not start it (its metadata names no product), or another app sold
    /// it.
    func input(paymentIntent id: String, kind: LedgerInput.Kind, app: StoredApp, observedAt: Instant) async throws
        -> LedgerInput?
    {
        let reading: StripePaymentReading
        do {
            reading = try await client.reading(ofPaymentIntent: id)
        } catch {
            throw IngestionError(error)
        }
        guard reading.productID != nil else { return nil }
        if let named = reading.bundleID, named != app.bundleID {
            logger.warning(
                "a Stripe payment names another app in its metadata",
                metadata: ["payment_intent": "\(id)", "app": "\(app.bundleID)", "named": "\(named)"])
            return nil
        }
        let observed: Transaction?
        do {
            observed = try reading.observation()
        } catch {
            throw IngestionError(.invalidNotificationPayload, "Stripe's payment cannot be read: \(error)")
        }
        // A product the catalog does not sell through Stripe is not the ledger's.
        let sold = observed.flatMap { app.definition.product($0.productID)?.store == .stripe ? $0 : nil }
        return LedgerInput(
            kind: kind, bundleID: app.bundleID,
            environment: reading.paymentIntent.livemode ? .production : .sandbox, submitter: nil,
            transactions: sold.map {
                var transaction = $0
                transaction.bundleID = app.bundleID
                return [transaction]
            } ?? [],
            renewalInfo: [], observedAt: observedAt)
    }
}
