import SubLedgerCore
import SubLedgerStore
import SubLedgerUseCases

/// The App Store behind `StorePort`: receipts through verifyReceipt, StoreKit 2 transactions and Server
/// Notifications through Apple's signatures, chains through the App Store Server API or, for receipt-only chains,
/// verifyReceipt on their latest receipt. A chain first heard of through a later transaction is filled from Get
/// Transaction History before it is applied (`Ingestion.withEarlierTransactions`), as Google Play's from its orders.
public struct AppStorePort: StorePort {
    public let ingestion: Ingestion

    public init(ingestion: Ingestion) {
        self.ingestion = ingestion
    }

    public var store: Store { .appStore }

    public func submit(_ submission: StoreSubmission, app: StoredApp) async throws -> SubmissionOutcome {
        switch submission.artifact {
        case .appStoreReceipt(let receiptData, let clientTransactionID):
            return try await ingestion.submitReceipt(
                receiptData, account: submission.account, orderID: submission.order,
                clientTransactionID: clientTransactionID, app: app)
        case .appStoreSignedTransaction(let token):
            return try await ingestion.submitSignedTransaction(
                token, account: submission.account, orderID: submission.order, app: app)
        default:
            throw IngestionError(.appMisconfigured, "another store's submission reached the App Store's port")
        }
    }

    /// An App Store Server Notification, V2 or V1: its credential is in its body (a signature or the shared secret).
    public func receive(_ push: StorePush) async throws -> PushOutcome {
        switch try await ingestion.receiveNotification(push.body) {
        case .applied(let type): .applied(notificationType: type)
        case .duplicate: .duplicate
        }
    }

    public func verifyStored(_ input: PollQueue.PendingInput, app: StoredApp) async throws {
        switch input.kind {
        case .appReceipt:
            _ = try await ingestion.verifyStoredReceipt(
                input.submissionID, receiptData: input.body, account: input.account, app: app,
                knownEnvironment: input.environment)
        case .signedTransaction:
            _ = try await ingestion.verifyStoredSignedTransaction(
                input.submissionID, token: input.body, account: input.account, app: app)
        case .storePurchase:
            throw IngestionError(.appMisconfigured, "another store's submission reached the App Store's port")
        }
    }

    public func applyStored(_ notification: PollQueue.PendingNotification, app: StoredApp) async throws -> Bool {
        if case .applied = try await ingestion.applyStoredNotification(notification, app: app) { return true }
        return false
    }

    /// Receipts deferred because Apple did not answer: while some wait, Apple is asked, through the circuit breaker,
    /// whether it answers again (for the app of the oldest); when it does they are all made due. Receipts refused for
    /// their own reasons keep their backoff.
    public func wakeDeferredInputs(now: Instant) async throws -> DeferredInputs {
        let deferred = try await ingestion.store.appleDeferredInputs(now: now)
        guard deferred.waiting > 0, let bundleID = deferred.oldestWaitingBundleID,
            let app = try await ingestion.findApp(bundleID), await ingestion.appleAnswers(app: app)
        else { return DeferredInputs(deferred: deferred.total, woken: 0) }
        let woken = try await ingestion.store.makeAppleDeferredInputsDue(now: now)
        return DeferredInputs(deferred: deferred.total, woken: woken)
    }

    /// A StoreKit 2 chain through Get All Subscription Statuses (`nil` for an app without Server API credentials);
    /// a receipt-only chain through verifyReceipt on its latest stored receipt.
    public func refresh(_ chain: PollQueue.DueChain, app: StoredApp) async throws -> LedgerStore.Applied? {
        if chain.route == .appStoreReceipt, let receipt = chain.receiptBody {
            return try await ingestion.pollReceipt(receipt, app: app, environment: chain.key.environment)
        }
        return try await ingestion.pollServerAPI(chain.key, app: app)
    }
}
