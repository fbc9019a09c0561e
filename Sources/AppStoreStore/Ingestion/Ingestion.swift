import AppStore
import AppStoreClients
import Foundation
import Logging
import SubLedgerCore
import SubLedgerStore
import SubLedgerUseCases

/// Turns what clients and Apple send into ledger inputs: store first, verify with Apple, apply once.
///
/// The order is what keeps purchases from being lost: the raw input is stored before Apple is called, so
/// when Apple is unavailable the refusal is transient (`apple_unavailable`, with a retry delay) and the stored input stays `retry` for the
/// renewal job to verify again, whether or not the client comes back.
public struct Ingestion: Sendable {
    let store: LedgerStore
    let apple: AppleGateway
    let logger: Logger
    /// The clock: ownership decisions and entitlements are evaluated at this time.
    let now: @Sendable () -> Instant
    /// The app configured under a bundle id (the service passes its NOTIFY-invalidated `AppDirectory`).
    let findApp: @Sendable (String) async throws -> StoredApp?
    /// How long a client is asked to wait after Apple failed, and when the job retries a stored input.
    static let retryAfterSeconds = 30

    public init(
        store: LedgerStore, apple: AppleGateway, logger: Logger, now: @escaping @Sendable () -> Instant,
        findApp: @escaping @Sendable (String) async throws -> StoredApp?
    ) {
        var configured = store
        configured.retry = apple.configuration.retry
        self.store = configured
        self.apple = apple
        self.logger = logger
        self.now = now
        self.findApp = findApp
    }

    /// An ingestion that reads the apps from `catalog` on every input (the jobs and commands; the service
    /// passes its cached `AppDirectory` to the other initializer).
    public init(
        store: LedgerStore, catalog: CatalogStore, apple: AppleGateway, logger: Logger,
        now: @escaping @Sendable () -> Instant
    ) {
        self.init(
            store: store, apple: apple, logger: logger, now: now,
            findApp: { bundleID in try await catalog.app(bundleID: bundleID) })
    }

    // MARK: - Receipts (StoreKit 1)

    /// Stores `receiptData` for `account`, verifies it with Apple and applies it.
    public func submitReceipt(
        _ receiptData: String, account: AccountID, orderID: OrderID?, clientTransactionID: String?, app: StoredApp
    ) async throws -> SubmissionOutcome {
        let receiptID = try await IngestionStep.store.traced(app: app.bundleID) {
            try await store.storeSubmission(
                kind: .appReceipt, body: receiptData, account: account, orderID: orderID,
                clientTransactionID: clientTransactionID, app: app)
        }
        return try await verifyStoredReceipt(receiptID, receiptData: receiptData, account: account, app: app)
    }

    /// Verifies and applies a stored receipt: the second half of `submitReceipt`, also run by the renewal
    /// job for receipts left `pending` or `retry`. `knownEnvironment` (where the receipt was applied before)
    /// is asked first; else the environment the receipt names, read offline.
    public func verifyStoredReceipt(
        _ receiptID: Int64, receiptData: String, account: AccountID?, app: StoredApp,
        knownEnvironment: StoreEnvironment? = nil
    ) async throws -> SubmissionOutcome {
        let offline = Self.readOffline(receiptData)
        if let bundleID = offline.bundleID, bundleID != app.bundleID {
            // Apple would answer 21004 (wrong shared secret), which reads as our misconfiguration.
            try await mark(.submission, receiptID, failed: "foreign_receipt: issued to another app", retryable: false)
            throw IngestionError(.foreignReceipt, "the receipt was issued to another app than \(app.bundleID)")
        }
        let outcome: VerifyReceiptOutcome
        do {
            outcome = try await callVerifyReceipt(
                receiptData, app: app, firstEnvironment: knownEnvironment ?? offline.environment)
        } catch let refusal as IngestionError {
            try await mark(
                .submission, receiptID, failed: LedgerStore.appleDeferredPrefix + refusal.message, retryable: true)
            throw refusal
        }
        let normalized: NormalizedReceipt
        do {
            normalized = try Self.normalizedReceipt(outcome, app: app)
        } catch {
            // Deferred only because Apple did not answer: marked so, to be due at once when Apple answers again.
            let failure =
                error.refusal.code == .appleUnavailable
                ? LedgerStore.appleDeferredPrefix + error.failure : error.failure
            let marked = try await mark(.submission, receiptID, failed: failure, retryable: error.refusal.isTransient)
            // The client is asked to come back when the job will have tried again (at most 30 s for Apple).
            let retryAfter = marked.retryAfter?.retryAfterSeconds ?? Self.retryAfterSeconds
            switch error.refusal.code {
            case .appleConfigurationError:
                logger.error(
                    "verifyReceipt configuration error",
                    metadata: ["app": "\(app.bundleID)", "failure": "\(error.failure)"])
                throw IngestionError(error.refusal.code, error.refusal.message, retryAfter: .seconds(retryAfter))
            case .appleUnavailable:
                logger.warning(
                    "Apple unavailable; receipt kept for retry",
                    metadata: ["receipt": "\(receiptID)", "failure": "\(error.failure)"])
                throw IngestionError(
                    error.refusal.code, error.refusal.message,
                    retryAfter: .seconds(min(retryAfter, Self.retryAfterSeconds)))
            default:
                throw error.refusal
            }
        }
        let applied = try await applyInput(
            LedgerInput(receipt: normalized, submittedBy: account), app: app, reference: .submission(receiptID),
            now: now()
        )
        return try await result(
            receiptID, normalized.environment, applied, ignored: normalized.ignored, account: account, app: app)
    }

    /// Re-verifies a stored receipt for the renewal job and applies Apple's current answer with no
    /// submitter: renewals and refunds go to each chain's owner. Throws a transient `IngestionError`
    /// (`apple_unavailable`) when Apple is unavailable, so the job backs off.
    public func pollReceipt(
        _ receiptData: String, app: StoredApp, environment: StoreEnvironment? = nil
    ) async throws -> LedgerStore.Applied {
        let outcome = try await callVerifyReceipt(receiptData, app: app, firstEnvironment: environment)
        let normalized: NormalizedReceipt
        do {
            normalized = try Self.normalizedReceipt(outcome, app: app)
        } catch {
            throw error.refusal
        }
        var input = LedgerInput(receipt: normalized, submittedBy: nil)
        input.kind = .poll
        return try await applyInput(input, app: app, now: now())
    }

    /// A verifyReceipt answer that credits nothing: the refusal to throw, and the failure to record on the
    /// stored receipt (Apple's words; never shown to a client).
    struct ReceiptRefusal: Error {
        var refusal: IngestionError
        var failure: String
    }

    /// The one reading of a verifyReceipt answer, for a submitted receipt and for the renewal job alike: the
    /// receipt normalized in `app`'s catalog, or why it credits nothing now.
    static func normalizedReceipt(_ outcome: VerifyReceiptOutcome, app: StoredApp) throws(ReceiptRefusal)
        -> NormalizedReceipt
    {
        switch outcome {
        case .valid(let verified):
            do {
                return try verified.snapshot.normalized(in: Catalog(apps: [app.definition]))
            } catch {
                throw ReceiptRefusal(
                    refusal: IngestionError(
                        .foreignReceipt, "the receipt belongs to another app or environment: \(error.code)"),
                    failure: "\(error)")
            }
        case .invalidReceipt(let failure):
            throw ReceiptRefusal(
                refusal: IngestionError(.invalidReceipt, "Apple rejected the receipt: \(failure.explanation)"),
                failure: failure.description)
        case .configurationError(let failure):
            // Our side is wrong (e.g. the shared secret): the receipt is kept for a retry once it is fixed.
            throw ReceiptRefusal(
                refusal: IngestionError(
                    .appleConfigurationError,
                    "Apple refused SubLedger's credentials for this app; the receipt is stored and will be verified again",
                    retryAfter: .seconds(retryAfterSeconds)),
                failure: failure.description)
        case .retryable(let failure), .upstreamFailure(let failure):
            throw ReceiptRefusal(
                refusal: IngestionError(
                    .appleUnavailable,
                    "Apple is unavailable; the receipt is stored and will be credited when Apple answers",
                    retryAfter: .seconds(retryAfterSeconds)),
                failure: failure.description)
        }
    }

    /// Calls verifyReceipt through the circuit breaker: a transient `apple_unavailable` at once while it is open.
    private func callVerifyReceipt(
        _ receiptData: String, app: StoredApp, firstEnvironment: StoreEnvironment?
    ) async throws -> VerifyReceiptOutcome {
        try await IngestionStep.verify.traced(app: app.bundleID) {
            try await callVerifyReceiptNow(receiptData, app: app, firstEnvironment: firstEnvironment)
        }
    }

    private func callVerifyReceiptNow(
        _ receiptData: String, app: StoredApp, firstEnvironment: StoreEnvironment?
    ) async throws -> VerifyReceiptOutcome {
        try admitAppleCall()
        guard await apple.callSlots.acquire() else {
            throw IngestionError(
                .appleUnavailable, "every call to Apple is busy; the input is stored and will be credited",
                retryAfter: AppleGateway.busyRetryAfter)
        }
        defer { apple.callSlots.release() }
        let client = apple.verifyReceiptClient(for: app, firstEnvironment: firstEnvironment)
        let outcome = await AppleCallMetrics.measure(.verifyReceipt, classify: AppleCallMetrics.Outcome.init) {
            await client.verify(receiptData: receiptData)
        }
        switch outcome {
        case .retryable, .upstreamFailure: apple.breaker.recordFailure()
        case .valid, .invalidReceipt, .configurationError: apple.breaker.recordSuccess()
        }
        return outcome
    }

    /// Whether verifyReceipt answers now for `app` (any answer of Apple's, a refusal of the probe's empty receipt
    /// included), asked through the circuit breaker: the renewal job's way to learn that Apple is back while
    /// receipts wait for it. `false` while the breaker refuses calls.
    public func appleAnswers(app: StoredApp) async -> Bool {
        guard let outcome = try? await callVerifyReceipt("", app: app, firstEnvironment: nil) else { return false }
        switch outcome {
        case .valid, .invalidReceipt, .configurationError: return true
        case .retryable, .upstreamFailure: return false
        }
    }

    /// Throws `apple_unavailable` with the breaker's wait while Apple is not to be called.
    private func admitAppleCall() throws(IngestionError) {
        do {
            try apple.admitCall()
        } catch {
            throw IngestionError(error)
        }
    }

    /// The signed-data verifier of `app` in `environment`, or the ingestion's refusal.
    private func verifier(for app: StoredApp, environment: StoreEnvironment) throws(IngestionError)
        -> SignedDataVerifier
    {
        do {
            return try apple.verifier(for: app, environment: environment)
        } catch {
            throw IngestionError(error)
        }
    }

    /// What an app receipt says about itself, read without Apple (nothing is granted on it): its bundle id
    /// and environment. Both `nil` when it cannot be read offline (it still goes to Apple then).
    static func readOffline(_ receiptData: String) -> (bundleID: String?, environment: StoreEnvironment?) {
        guard let receipt = try? AppReceiptReader().read(base64: receiptData) else { return (nil, nil) }
        let environment: StoreEnvironment? =
            switch receipt.receiptType {
            case "Production": .production
            case "ProductionSandbox", "Sandbox": .sandbox
            default: nil
            }
        let bundleID = receipt.bundleID.flatMap { $0.isEmpty ? nil : $0 }
        return (bundleID, environment)
    }

    /// Asks the App Store Server API for the statuses of `chain`'s subscriptions (Get All Subscription
    /// Statuses) and applies them with no submitter. `nil` when the app has no Server API credentials.
    public func pollServerAPI(_ chain: ChainKey, app: StoredApp) async throws -> LedgerStore.Applied? {
        let serverAPIClient: AppStoreServerAPIClient?
        do {
            serverAPIClient = try apple.serverAPIClient(for: app, environment: chain.environment)
        } catch let error as AppleGatewayError {
            throw IngestionError(error)
        }
        guard let client = serverAPIClient else { return nil }
        try admitAppleCall()
        let statuses: SubscriptionStatuses
        do {
            statuses = try await AppleCallMetrics.measure(
                .subscriptionStatuses,
                classifyError: { ($0 as? AppStoreServerAPIError)?.isRetryable == true ? .retryable : .rejected }
            ) { try await client.allSubscriptionStatuses(transactionID: chain.chainID) }
            apple.breaker.recordSuccess()
        } catch let error as AppStoreServerAPIError {
            if error.isRetryable {
                apple.breaker.recordFailure()
                throw IngestionError(.appleUnavailable, "\(error)", retryAfter: .seconds(Self.retryAfterSeconds))
            }
            apple.breaker.recordSuccess()
            throw IngestionError(.serverAPIRefused, "\(error)")
        }
        var transactions: [Transaction] = []
        var renewals: [RenewalInfo] = []
        for status in statuses.groups.flatMap(\.lastTransactions) {
            if let transaction = try status.transaction?.coreTransaction(source: .serverAPI) {
                transactions.append(transaction)
            }
            if let renewal = try status.renewalInfo?.coreRenewalInfo() { renewals.append(renewal) }
        }
        let input = LedgerInput(
            kind: .poll, bundleID: app.bundleID, environment: chain.environment, submitter: nil,
            transactions: transactions, renewalInfo: renewals, observedAt: now())
        return try await applyInput(input, app: app, now: now())
    }

    // MARK: - Signed transactions (StoreKit 2)

    /// Stores a StoreKit 2 signed transaction for `account`, verifies its signature and applies it.
    public func submitSignedTransaction(
        _ token: String, account: AccountID, orderID: OrderID?, app: StoredApp
    ) async throws -> SubmissionOutcome {
        let inputID = try await IngestionStep.store.traced(app: app.bundleID) {
            try await store.storeSubmission(
                kind: .signedTransaction, body: token, account: account, orderID: orderID, app: app)
        }
        return try await verifyStoredSignedTransaction(inputID, token: token, account: account, app: app)
    }

    /// Verifies and applies a stored signed transaction (also run by the renewal job).
    public func verifyStoredSignedTransaction(
        _ inputID: Int64, token: String, account: AccountID?, app: StoredApp
    ) async throws -> SubmissionOutcome {
        // Parsed once: the claimed environment picks the verifier, which verifies this same parse.
        guard let claimed = AppleGateway.claimedJWS(token), let environment = claimed.environment else {
            try await mark(.submission, inputID, failed: "malformed JWS", retryable: false)
            throw IngestionError(.malformedJWS, "signed_transaction is not a JWS transaction with an environment")
        }
        let transaction: Transaction
        do {
            transaction = try await IngestionStep.verify.traced(app: app.bundleID) {
                let verifier = try verifier(for: app, environment: environment)
                return try await verifier.verifyTransaction(claimed.jws).coreTransaction(source: .signedTransaction)
            }
        } catch let error as IngestionError {
            // A transient refusal is our side (e.g. an app that cannot verify this environment yet): the stored
            // transaction is retried once that is fixed, never given up.
            try await mark(.submission, inputID, failed: error.code.rawValue, retryable: error.isTransient)
            throw error
        } catch {
            try await mark(.submission, inputID, failed: "\(error)", retryable: false)
            throw IngestionError(.invalidSignedTransaction, "the signed transaction did not verify: \(error)")
        }
        var input = LedgerInput(
            kind: .signedTransaction, bundleID: app.bundleID, environment: environment, submitter: account,
            transactions: [transaction], observedAt: transaction.signedDate)
        do {
            try await refreshContestedChain(of: transaction, submitter: account, app: app)
            // A renewal's transaction submitted before anything else of its chain: the chain from its beginning.
            input = try await withEarlierTransactions(input, of: firstContacts(in: input, app: app), app: app)
        } catch let error as IngestionError {
            try await mark(.submission, inputID, failed: error.code.rawValue, retryable: error.isTransient)
            throw error
        }
        let applied = try await applyInput(input, app: app, reference: .submission(inputID), now: now())
        return try await result(inputID, environment, applied, ignored: [], account: account, app: app)
    }

    /// The ownership rule judges a chain by its current state, whatever a submission carries. A signed transaction
    /// is one transaction as Apple signed it then (possibly long ago): when it names a subscription chain another
    /// account owns, the chain is first read again from the App Store Server API (Get All Subscription Statuses,
    /// applied with no submitter), so that "the owner is still actively auto-renewing" is judged on Apple's current
    /// state, not on what SubLedger last heard (a renewal whose notification was lost would otherwise look like a
    /// lapse). Apple failing is transient (the submission is kept and retried); an app without Server API
    /// credentials is judged on the stored state. Under a policy that decides without the owner's renewal state
    /// (`OwnershipPolicy.consultsOwnersAutoRenewal`) nothing is read again.
    func refreshContestedChain(of transaction: Transaction, submitter: AccountID?, app: StoredApp) async throws {
        guard let submitter, app.definition.ownershipPolicy.consultsOwnersAutoRenewal,
            app.definition.product(transaction.productID)?.type == .autoRenewable,
            let stored = try await store.chain(transaction.chainKey, app: app),
            let owner = stored.header.owner, owner != submitter
        else { return }
        do {
            _ = try await pollServerAPI(transaction.chainKey, app: app)
        } catch let error as IngestionError where !error.isTransient {
            // Apple refused the question (not the service failing): judged on the stored state.
            logger.notice(
                "the contested chain could not be read again from the Server API",
                metadata: ["chain": "\(transaction.chainKey.chainID)", "error": "\(error.code.rawValue)"])
        }
    }

    // MARK: - Notifications

    /// What happened to a notification.
    public enum NotificationResult: Sendable, Equatable {
        case applied(notificationType: String)
        /// Already applied before: a replay, answered 200 and changing nothing.
        case duplicate
    }

    /// Verifies, stores (deduplicated by notification id) and applies an App Store Server Notification body,
    /// V2 (`signedPayload`) or V1 (legacy JSON authenticated by the shared secret).
    public func receiveNotification(_ body: Data) async throws -> NotificationResult {
        // The app is known once the body is read, so this step's span names none.
        let (verified, app) = try await IngestionStep.verify.traced(app: nil) {
            try await verifyNotification(body, receivedAt: now())
        }
        // Secrets at rest: a V1 body is stored without the shared secret Apple echoes in `password`. Its
        // notification id stays the digest of the body as received (Apple's retries repeat it exactly).
        let storedBody = verified.version == .v1 ? NotificationV1Redaction.removingPassword(from: body) : body
        let input = LedgerInput(notification: verified)
        let contacts = try await firstContacts(in: input, app: app)
        if !contacts.isEmpty {
            return try await receiveFirstContact(
                verified, body: String(decoding: storedBody, as: UTF8.self), input: input, contacts: contacts, app: app)
        }
        // Stored and applied in one transaction (deduplicated by notification id): one `apply` step.
        let received = try await IngestionStep.apply.traced(app: app.bundleID) {
            try await store.receive(
                verified, body: String(decoding: storedBody, as: UTF8.self), input: input, app: app, now: now())
        }
        switch received {
        case .duplicate:
            return .duplicate
        case .applied(_, let applied):
            LedgerMetrics.record(applied)
            return .applied(notificationType: verified.notificationType)
        }
    }

    /// `receiveNotification` for a notification through which SubLedger first hears of a chain after its first
    /// transaction: stored first (committed on its own), then the chain's earlier transactions are read from Apple,
    /// then all is applied with the stored row. Apple failing leaves the row `retry` (the renewal job applies it, or
    /// Apple's next delivery) and answers the transient refusal, so Apple delivers it again.
    private func receiveFirstContact(
        _ verified: ServerNotification, body: String, input: LedgerInput,
        contacts: [(key: ChainKey, arrived: Transaction)], app: StoredApp
    ) async throws -> NotificationResult {
        let stored = try await IngestionStep.store.traced(app: app.bundleID) {
            try await store.storeNotification(verified, body: body, app: app)
        }
        if stored.alreadyApplied { return .duplicate }
        let filled: LedgerInput
        do {
            filled = try await withEarlierTransactions(input, of: contacts, app: app)
        } catch let error as IngestionError {
            try await mark(.notification, stored.id, failed: error.code.rawValue, retryable: error.isTransient)
            throw error
        }
        let received: LedgerStore.NotificationOutcome
        do {
            received = try await IngestionStep.apply.traced(app: app.bundleID) {
                try await store.applyStoredNotification(stored.id, filled, app: app, now: now())
            }
        } catch {
            try await mark(.notification, stored.id, failed: "\(error)", retryable: true)
            throw error
        }
        switch received {
        case .duplicate:
            return .duplicate
        case .applied(_, let applied):
            LedgerMetrics.record(applied)
            return .applied(notificationType: verified.notificationType)
        }
    }

    /// Applies a stored notification that was not applied when it arrived (the renewal job's work). It was
    /// authenticated before it was stored; it is verified again from its stored body, a V1 body with the
    /// app's shared secret as its password (stored bodies may not keep it). A failure is recorded on the
    /// row with its error: retried with backoff, quarantined in the end; an unverifiable body is `invalid`.
    public func applyStoredNotification(_ pending: PollQueue.PendingNotification, app: StoredApp) async throws
        -> NotificationResult
    {
        var body = Data(pending.body.utf8)
        if pending.format == .appStoreV1, let secret = app.sharedSecret,
            var object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
        {
            object["password"] = secret
            body = (try? JSONSerialization.data(withJSONObject: object)) ?? body
        }
        let verified: ServerNotification
        do {
            verified = try await verifyNotification(body, receivedAt: pending.receivedAt).notification
        } catch let error as IngestionError {
            // A final refusal: the stored body can never verify (invalid); a transient one (our configuration):
            // try again later.
            try await mark(.notification, pending.rowID, failed: error.code.rawValue, retryable: error.isTransient)
            throw error
        }
        do {
            var input = LedgerInput(notification: verified)
            input = try await withEarlierTransactions(input, of: firstContacts(in: input, app: app), app: app)
            switch try await store.applyStoredNotification(pending.rowID, input, app: app, now: now()) {
            case .duplicate:
                return .duplicate
            case .applied(_, let applied):
                LedgerMetrics.record(applied)
                return .applied(notificationType: verified.notificationType)
            }
        } catch {
            try await mark(.notification, pending.rowID, failed: "\(error)", retryable: true)
            throw error
        }
    }

    /// Authenticates a notification body and finds its app.
    private func verifyNotification(_ body: Data, receivedAt: Instant) async throws -> (
        notification: ServerNotification, app: StoredApp
    ) {
        struct Shape: Decodable {
            var signedPayload: String?
            var bid: String? = nil
            var notification_type: String? = nil
        }
        let shape: Shape
        if let signedPayload = NotificationBodyV2.plainSignedPayload(body) {
            // Apple's exact form, read without a JSON decoder (it reads the same string).
            shape = Shape(signedPayload: signedPayload)
        } else {
            do {
                shape = try JSONDecoder().decode(Shape.self, from: body)
            } catch {
                throw IngestionError(.malformedNotification, "the notification body is not JSON")
            }
        }
        if let signedPayload = shape.signedPayload {
            // Parsed and decoded once: the claimed app and environment pick the verifier, which verifies this
            // same parse and checks this same decoded payload.
            guard let claimed = AppleGateway.claimedNotification(signedPayload), let bundleID = claimed.bundleID,
                let environment = claimed.environment
            else {
                throw IngestionError(
                    .malformedJWS, "signedPayload is not a JWS notification naming its app and environment")
            }
            let app = try await knownApp(bundleID)
            let decoder = ServerNotificationDecoder(
                verifier: try verifier(for: app, environment: environment), sharedSecret: app.sharedSecret)
            do {
                if let notification = claimed.notification {
                    return (try await decoder.decodeV2(notification).notification, app)
                }
                return (try await decoder.decodeV2(signedPayload: claimed.jws).notification, app)
            } catch let error where error.code == .unmappable {
                throw Self.unmappableNotification(error)
            } catch {
                throw IngestionError(.invalidSignature, "the notification did not verify: \(error.code)")
            }
        } else if shape.notification_type != nil, let bundleID = shape.bid {
            let app = try await knownApp(bundleID)
            let environment = Self.v1Environment(body) ?? .production
            let decoder = ServerNotificationDecoder(
                verifier: try verifier(for: app, environment: environment), sharedSecret: app.sharedSecret)
            do {
                return (try decoder.decodeV1(body: body, receivedAt: receivedAt).notification, app)
            } catch let error where error.code == .unmappable {
                throw Self.unmappableNotification(error)
            } catch {
                throw IngestionError(.invalidNotification, "the V1 notification was refused: \(error.code)")
            }
        } else {
            throw IngestionError(.unknownNotification, "expected a V2 {\"signedPayload\"} or a V1 notification")
        }
    }

    /// A notification that authenticated (signature or shared secret) but holds what no real one does: a
    /// date outside 1970-9999, an impossible id, a missing field. Only an authenticated sender sees this
    /// answer, so it may name the field (never the value).
    private static func unmappableNotification(_ error: NotificationDecodingError) -> IngestionError {
        let field = error.mappingError.map { " (\($0.code): \($0.field))" } ?? ""
        return IngestionError(
            .invalidNotificationPayload, "the notification is authentic but cannot be applied\(field)")
    }

    private static func v1Environment(_ body: Data) -> StoreEnvironment? {
        struct Environment: Decodable { var environment: String? }
        return (try? JSONDecoder().decode(Environment.self, from: body))?.environment.flatMap(
            StoreEnvironment.init(appleSpelling:))
    }

    private func knownApp(_ bundleID: String) async throws -> StoredApp {
        guard let app = try await findApp(bundleID) else {
            throw IngestionError(.unknownApp, "no app with bundle id '\(bundleID)' is configured")
        }
        return app
    }

    // MARK: - Answers

    /// Records a failed attempt on a stored input (see `LedgerStore.markSubmission`), counting quarantines.
    @discardableResult
    private func mark(_ input: LedgerStore.StoredInputKind, _ id: Int64, failed reason: String, retryable: Bool)
        async throws
        -> LedgerStore.StoredInputFailure
    {
        let marked =
            switch input {
            case .submission: try await store.markSubmission(id, failed: reason, retryable: retryable, now: now())
            case .notification: try await store.markNotification(id, failed: reason, retryable: retryable, now: now())
            }
        if marked.status == "quarantined" { StoredInputMetrics.quarantined(input.rawValue) }
        return marked
    }

    /// Applies through the ledger and counts the effects (`subledger_ledger_*` metrics).
    @discardableResult
    private func applyInput(
        _ input: LedgerInput, app: StoredApp, reference: LedgerStore.InputReference = .none, now instant: Instant
    ) async throws -> LedgerStore.Applied {
        let applied = try await IngestionStep.apply.traced(app: app.bundleID) {
            try await store.apply(input, app: app, reference: reference, now: instant)
        }
        LedgerMetrics.record(applied)
        return applied
    }

    private func result(
        _ inputID: Int64, _ environment: StoreEnvironment, _ applied: LedgerStore.Applied,
        ignored: [IgnoredTransaction], account: AccountID?, app: StoredApp
    ) async throws -> SubmissionOutcome {
        let answered = applied.submitter ?? account
        var entitlements: [Entitlement] = []
        if let answered { entitlements = try await store.entitlements(for: answered, app: app, at: now()) }
        return SubmissionOutcome(
            inputID: inputID, environment: environment, outcomes: applied.decision.transactionOutcomes,
            ignored: ignored, entitlements: entitlements, account: answered)
    }
}

extension Ingestion {
    /// Makes the receipts deferred while Apple did not answer due at once (Apple answers again), for the renewal
    /// job; answers how many.
    public func makeAppleDeferredInputsDue(now: Instant) async throws -> Int {
        try await store.makeAppleDeferredInputsDue(now: now)
    }
}
