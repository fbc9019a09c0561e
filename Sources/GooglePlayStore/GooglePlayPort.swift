import Logging
import SubLedgerCore
import SubLedgerStore
import SubLedgerUseCases

/// Google Play behind `StorePort`: purchase tokens and real-time developer notifications read back from the
/// Developer API, chains through the lineage's newest token.
public struct GooglePlayPort: StorePort {
    public let ingestion: GooglePlayIngestion
    let notifications: GooglePlayNotifications

    public init(
        ingestion: GooglePlayIngestion, catalog: CatalogStore, logger: Logger, now: @escaping @Sendable () -> Instant
    ) {
        self.ingestion = ingestion
        self.notifications = GooglePlayNotifications(
            ingestion: ingestion,
            findApp: { packageName in
                // A push names its package unverified: one no app can have is unknown without asking the database.
                guard GooglePlayListing.isPackageName(packageName) else { return nil }
                return try await catalog.app(googlePlayPackage: packageName)
            }, logger: logger, now: now)
    }

    public var store: Store { .googlePlay }

    public func submit(_ submission: StoreSubmission, app: StoredApp) async throws -> SubmissionOutcome {
        switch submission.artifact {
        case .googlePlayPurchase(let packageName, let productID, let purchaseToken):
            return try await ingestion.submitPurchase(
                .init(packageName: packageName, productID: productID, purchaseToken: purchaseToken),
                account: submission.account, app: app)
        default:
            throw IngestionError(.appMisconfigured, "another store's submission reached Google Play's port")
        }
    }

    public func receive(_ push: StorePush) async throws -> PushOutcome {
        try await notifications.receive(body: push.body, authorization: push.credential)
    }

    public func verifyStored(_ input: PollQueue.PendingInput, app: StoredApp) async throws {
        guard input.kind == .googlePurchase else {
            throw IngestionError(.appMisconfigured, "another store's submission reached Google Play's port")
        }
        let submission = try GooglePlayIngestion.PurchaseSubmission(storedBody: input.body)
        _ = try await ingestion.verifyStoredPurchase(
            input.submissionID, submission: submission, account: input.account, app: app)
    }

    public func applyStored(_ notification: PollQueue.PendingNotification, app: StoredApp) async throws -> Bool {
        if case .applied = try await notifications.applyStored(notification, app: app) { return true }
        return false
    }

    /// None: a purchase Google could not be asked about keeps its backoff (the client retries within a call, and no
    /// breaker says when Google answers again).
    public func wakeDeferredInputs(now: Instant) async throws -> DeferredInputs {
        DeferredInputs(deferred: 0, woken: 0)
    }

    public func refresh(_ chain: PollQueue.DueChain, app: StoredApp) async throws -> LedgerStore.Applied? {
        try await ingestion.pollChain(chain.key, app: app)
    }
}
