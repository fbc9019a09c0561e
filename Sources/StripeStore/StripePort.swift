import Logging
import SubLedgerCore
import SubLedgerStore
import SubLedgerUseCases

/// Stripe behind `StorePort`: webhooks read back from the Stripe API, chains by subscription or, for a one-time
/// purchase, by payment intent.
public struct StripePort: StorePort {
    let notifications: StripeNotifications
    let checkouts: StripeCheckoutSubmissions

    public init(
        store: LedgerStore, gateway: StripeGateway, catalog: CatalogStore, logger: Logger,
        now: @escaping @Sendable () -> Instant
    ) {
        self.notifications = StripeNotifications(
            store: store, gateway: gateway,
            stripeApps: {
                try await catalog.apps(
                    holding: .stripe, secrets: [StripeSecrets.names.secretKey, StripeSecrets.names.webhookSecret])
            }, logger: logger,
            now: now)
        self.checkouts = StripeCheckoutSubmissions(store: store, gateway: gateway, logger: logger, now: now)
    }

    public var store: Store { .stripe }

    /// A paid Checkout Session the app server submits for its account: stored, then its subscription read back and
    /// applied with the account as the submitter (what the webhook would apply, sooner, and when it is lost).
    public func submit(_ submission: StoreSubmission, app: StoredApp) async throws -> SubmissionOutcome {
        guard case .stripeCheckout(let sessionID) = submission.artifact else {
            throw IngestionError(.appMisconfigured, "another store's submission reached Stripe's port")
        }
        return try await checkouts.submit(sessionID: sessionID, account: submission.account, app: app)
    }

    public func receive(_ push: StorePush) async throws -> PushOutcome {
        try await notifications.receive(body: push.body, signature: push.credential)
    }

    /// Throws `invalid_signature` unless `push`'s `Stripe-Signature` verifies under an app's signing secret; reads
    /// nothing else of it. For a route that refuses a body before handing it to `receive` (a body that is not text):
    /// an unsigned body is refused as unsigned whatever it holds.
    public func authenticate(_ push: StorePush) async throws {
        _ = try await notifications.authenticate(body: push.body, signature: push.credential)
    }

    public func verifyStored(_ input: PollQueue.PendingInput, app: StoredApp) async throws {
        guard input.kind == .stripeCheckout else {
            throw IngestionError(.appMisconfigured, "another store's submission reached Stripe's port")
        }
        _ = try await checkouts.verifyStored(
            input.submissionID, sessionID: try StripeCheckoutSubmissions.sessionID(storedBody: input.body),
            account: input.account, app: app)
    }

    public func applyStored(_ notification: PollQueue.PendingNotification, app: StoredApp) async throws -> Bool {
        if case .applied = try await notifications.applyStored(notification, app: app) { return true }
        return false
    }

    /// None: Stripe's webhooks are retried by Stripe, and an event read back failing stays stored for the renewal job.
    public func wakeDeferredInputs(now: Instant) async throws -> DeferredInputs {
        DeferredInputs(deferred: 0, woken: 0)
    }

    public func refresh(_ chain: PollQueue.DueChain, app: StoredApp) async throws -> LedgerStore.Applied? {
        let client = try await notifications.gateway.client(for: app)
        let now = notifications.now()
        let readBack = StripeReadBack(client: client, logger: notifications.logger)
        // A one-time purchase's chain is its payment intent; a subscription's, the subscription.
        let read =
            chain.key.chainID.hasPrefix("pi_")
            ? try await readBack.input(paymentIntent: chain.key.chainID, kind: .poll, app: app, observedAt: now)
            : try await readBack.input(subscription: chain.key.chainID, kind: .poll, app: app, observedAt: now)
        guard let input = read, !input.transactions.isEmpty else { return nil }
        let applied = try await notifications.store.apply(input, app: app, now: now)
        LedgerMetrics.record(applied)
        return applied
    }
}
