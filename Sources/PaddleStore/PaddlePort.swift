import Logging
import SubLedgerCore
import SubLedgerStore
import SubLedgerUseCases

/// Paddle behind `StorePort`: notifications read back from the Paddle API, chains by subscription (`sub_…`) or, for a
/// one-time purchase, by transaction (`txn_…`). An app submits nothing: a purchase starts at SubLedger's checkout
/// (`PaddleCheckout`, the order in the transaction's `custom_data`) and arrives as Paddle's notifications.
public struct PaddlePort: StorePort {
    let notifications: PaddleNotifications

    public init(
        store: LedgerStore, gateway: PaddleGateway, catalog: CatalogStore, logger: Logger,
        now: @escaping @Sendable () -> Instant
    ) {
        self.notifications = PaddleNotifications(
            store: store, gateway: gateway,
            paddleApps: {
                try await catalog.apps(
                    holding: .paddle, secrets: [PaddleSecrets.names.apiKey, PaddleSecrets.names.webhookSecret])
            }, logger: logger, now: now)
    }

    public var store: Store { .paddle }

    public func submit(_ submission: StoreSubmission, app: StoredApp) async throws -> SubmissionOutcome {
        throw IngestionError(
            .appMisconfigured, "Paddle takes no submissions: its purchases arrive as Paddle's notifications")
    }

    public func receive(_ push: StorePush) async throws -> PushOutcome {
        try await notifications.receive(body: push.body, signature: push.credential)
    }

    /// Throws `invalid_signature` unless `push`'s `Paddle-Signature` verifies under an app's secret key; reads nothing
    /// else of it.
    public func authenticate(_ push: StorePush) async throws {
        _ = try await notifications.authenticate(body: push.body, signature: push.credential)
    }

    public func verifyStored(_ input: PollQueue.PendingInput, app: StoredApp) async throws {
        throw IngestionError(.appMisconfigured, "another store's submission reached Paddle's port")
    }

    public func applyStored(_ notification: PollQueue.PendingNotification, app: StoredApp) async throws -> Bool {
        if case .applied = try await notifications.applyStored(notification, app: app) { return true }
        return false
    }

    /// None: Paddle retries its notifications, and one whose read-back failed stays stored for the renewal job.
    public func wakeDeferredInputs(now: Instant) async throws -> DeferredInputs {
        DeferredInputs(deferred: 0, woken: 0)
    }

    public func refresh(_ chain: PollQueue.DueChain, app: StoredApp) async throws -> LedgerStore.Applied? {
        let client = try await notifications.gateway.client(for: app)
        let now = notifications.now()
        let readBack = PaddleReadBack(
            client: client, environment: app.paddle?.environment ?? .production, logger: notifications.logger)
        // A one-time purchase's chain is its transaction; a subscription's, the subscription.
        let read =
            chain.key.chainID.hasPrefix("txn_")
            ? try await readBack.input(transaction: chain.key.chainID, kind: .poll, app: app, observedAt: now)
            : try await readBack.input(subscription: chain.key.chainID, kind: .poll, app: app, observedAt: now)
        guard let input = read, !input.transactions.isEmpty else { return nil }
        let applied = try await notifications.store.apply(input, app: app, now: now)
        LedgerMetrics.record(applied)
        return applied
    }
}
