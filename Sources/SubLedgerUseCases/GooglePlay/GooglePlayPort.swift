import Logging
import SubLedgerCore
import SubLedgerStore

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
            ingestion: ingestion, findApp: { try await catalog.app(googlePlayPackage: $0) }, logger: logger, now: now)
    }

    public var store: Store { .googlePlay }

    public func verifyStored(_ input: PollQueue.PendingInput, app: StoredApp) async throws {
        guard input.kind == .googlePurchase else {
            throw IngestionError(.appMisconfigured, "an App Store submission reached Google Play's port")
        }
        let submission = try GooglePlayIngestion.PurchaseSubmission(storedBody: input.body)
        _ = try await ingestion.verifyStoredPurchase(
            input.submissionID, submission: submission, account: input.account, app: app)
    }

    public func applyStored(_ notification: PollQueue.PendingNotification, app: StoredApp) async throws -> Bool {
        if case .applied = try await notifications.applyStored(notification, app: app) { return true }
        return false
    }

    public func refresh(_ chain: PollQueue.DueChain, app: StoredApp) async throws -> LedgerStore.Applied? {
        try await ingestion.pollChain(chain.key, app: app)
    }
}
