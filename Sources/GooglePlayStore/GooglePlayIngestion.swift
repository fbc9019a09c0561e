import Foundation
import GooglePlay
import GooglePlayClients
import Logging
import SubLedgerCore
import SubLedgerStore
import SubLedgerUseCases

/// Google Play purchases into the ledger: store the submission first, read the purchase from the Developer API
/// (the app's word is a hint; Google's answer is the state), apply it under the ownership rule, and leave the
/// acknowledgement to the outbox the apply wrote (`StoreObligationSender`).
///
/// As for Apple, a submission is stored before Google is called, so when Google is unavailable the refusal is
/// transient (`google_play_unavailable`, with a retry delay) and the stored purchase stays `retry` for the
/// renewal job to verify again.
public struct GooglePlayIngestion: Sendable {
    public let store: LedgerStore
    let tokens: GooglePlayRecords
    let gateway: GooglePlayGateway
    let logger: Logger
    let now: @Sendable () -> Instant
    /// How long a client is asked to wait after Google failed.
    static let retryAfterSeconds = 30

    public init(
        store: LedgerStore, gateway: GooglePlayGateway, logger: Logger, now: @escaping @Sendable () -> Instant
    ) {
        self.store = store
        self.tokens = GooglePlayRecords(pool: store.pool)
        self.gateway = gateway
        self.logger = logger
        self.now = now
    }

    /// What an app submits for a Google Play purchase, and what is stored as the submission's body.
    public struct PurchaseSubmission: Codable, Hashable, Sendable {
        public var packageName: String
        public var productID: String
        public var purchaseToken: String

        public init(packageName: String, productID: String, purchaseToken: String) {
            self.packageName = packageName
            self.productID = productID
            self.purchaseToken = purchaseToken
        }

        enum CodingKeys: String, CodingKey {
            case packageName = "package_name"
            case productID = "product_id"
            case purchaseToken = "purchase_token"
        }

        /// The stored body: the same submission is the same text, so a replay finds its stored row.
        var body: String {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            return String(decoding: (try? encoder.encode(self)) ?? Data(), as: UTF8.self)
        }

        /// Reads a stored body.
        public init(storedBody: String) throws {
            self = try JSONDecoder().decode(Self.self, from: Data(storedBody.utf8))
        }
    }

    /// Stores `submission` for `account`, verifies it with Google and applies it.
    public func submitPurchase(_ submission: PurchaseSubmission, account: AccountID, app: StoredApp) async throws
        -> SubmissionOutcome
    {
        let id = try await IngestionStep.store.traced(app: app.bundleID) {
            try await store.storeSubmission(kind: .googlePurchase, body: submission.body, account: account, app: app)
        }
        return try await verifyStoredPurchase(id, submission: submission, account: account, app: app)
    }

    /// Verifies and applies a stored submission: the second half of `submitPurchase`, also run by the renewal
    /// job for submissions left `pending` or `retry`.
    public func verifyStoredPurchase(
        _ id: Int64, submission: PurchaseSubmission, account: AccountID?, app: StoredApp
    ) async throws -> SubmissionOutcome {
        guard app.definition.googlePlay?.packageName == submission.packageName else {
            try await mark(id, failed: "wrong_package", retryable: false)
            throw IngestionError(.invalidPurchase, "the package name is not this app's on Google Play")
        }
        guard let product = app.definition.product(submission.productID), product.store == .googlePlay else {
            try await mark(id, failed: "unknown_product", retryable: false)
            throw IngestionError(.invalidPurchase, "'\(submission.productID)' is not a Google Play product of this app")
        }
        let reading: GooglePlayReading
        do {
            reading = try await IngestionStep.verify.traced(app: app.bundleID) {
                try await read(submission, type: product.type, app: app)
            }
        } catch let refusal as IngestionError {
            try await mark(id, failed: refusal.code.rawValue + ": " + refusal.message, retryable: refusal.isTransient)
            throw refusal
        }
        let input = LedgerInput(
            kind: .googlePurchase, bundleID: app.bundleID, environment: reading.environment, submitter: account,
            transactions: reading.transactions, renewalInfo: [reading.renewalInfo].compactMap { $0 },
            observedAt: now())
        let applied = try await IngestionStep.apply.traced(app: app.bundleID) {
            try await store.apply(input, app: app, reference: .submission(id), now: now())
        }
        LedgerMetrics.record(applied)
        let answered = applied.submitter ?? account
        var entitlements: [Entitlement] = []
        if let answered { entitlements = try await store.entitlements(for: answered, app: app, at: now()) }
        return SubmissionOutcome(
            inputID: id, environment: reading.environment, outcomes: applied.decision.transactionOutcomes,
            ignored: [], entitlements: entitlements, account: answered)
    }

    /// Reads `chain`'s subscription again from the Developer API (on its newest purchase token) and applies
    /// Google's current state with no submitter: renewals, grace, hold and expiry go to the chain's owner. `nil`
    /// when the chain is not a Google Play subscription SubLedger knows a token of.
    public func pollChain(_ chain: ChainKey, app: StoredApp) async throws -> LedgerStore.Applied? {
        guard let stored = try await store.chain(chain, app: app) else { return nil }
        // The lineage's newest token: the chain's latest transaction in the lineage's order.
        guard let transaction = stored.transactions.last?.transaction, transaction.store == .googlePlay,
            let token = transaction.purchaseToken, let product = app.definition.product(transaction.productID),
            product.type == .autoRenewable, let packageName = app.definition.googlePlay?.packageName
        else { return nil }
        let reading = try await read(
            PurchaseSubmission(packageName: packageName, productID: transaction.productID, purchaseToken: token),
            type: product.type, app: app)
        let input = LedgerInput(
            kind: .poll, bundleID: app.bundleID, environment: reading.environment, submitter: nil,
            transactions: reading.transactions, renewalInfo: [reading.renewalInfo].compactMap { $0 },
            observedAt: now())
        let applied = try await store.apply(input, app: app, now: now())
        LedgerMetrics.record(applied)
        return applied
    }

    /// Reads the purchase from the Developer API and maps it, its chain found through the token's lineage; for a
    /// subscription, with the chain's current state (`currentState(of:…)`).
    func read(_ submission: PurchaseSubmission, type: ProductType, app: StoredApp) async throws
        -> GooglePlayReading
    {
        let (client, packageName) = try await gateway.client(for: app)
        let observedAt = now()
        do {
            switch type {
            case .autoRenewable:
                let purchase = try await client.subscriptionV2(
                    packageName: packageName, token: submission.purchaseToken)
                guard purchase.primaryLineItem?.productId == submission.productID else {
                    throw IngestionError(.invalidPurchase, "the purchase token is not a purchase of this product")
                }
                let chain = try await chain(
                    of: submission.purchaseToken, purchase: purchase, client: client, packageName: packageName,
                    app: app)
                let observation = try purchase.observation(
                    purchaseToken: submission.purchaseToken, packageName: packageName,
                    chainID: chain.chainID, observedAt: observedAt)
                let reading = try await currentState(
                    of: observation, replaced: purchase.isReplaced, client: client, packageName: packageName,
                    app: app, observedAt: observedAt)
                return try await withEarlierOrders(
                    reading, token: submission.purchaseToken, purchase: purchase, chain: chain, client: client,
                    packageName: packageName, app: app)
            case .consumable, .nonConsumable, .nonRenewing:
                let purchase = try await client.productV2(packageName: packageName, token: submission.purchaseToken)
                guard purchase.productLineItem?.first?.productId == submission.productID else {
                    throw IngestionError(.invalidPurchase, "the purchase token is not a purchase of this product")
                }
                let observation = try purchase.observation(
                    purchaseToken: submission.purchaseToken, packageName: packageName, observedAt: observedAt)
                try await recordProductToken(submission.purchaseToken, of: observation, app: app)
                return GooglePlayReading(observation)
            }
        } catch let error as GooglePlayAPIError {
            throw Self.refusal(error)
        } catch let error as GooglePlayMappingError {
            throw Self.refusal(error)
        }
    }

    /// `observation` of a subscription token with the chain's current state.
    ///
    /// A token that still auto-renews is the lineage's newest: its state is the chain's. Otherwise, when Google
    /// replaced the token (`replaced`) or the stored chain has a transaction bought under a token that replaced it,
    /// the chain's state is read from the lineage's newest token SubLedger knows (the stored chain's latest
    /// transaction in `TransactionOrder`): its latest order joins the reading and its renewal state is the chain's.
    /// Without a newer known token the read token's own state stands (the best known of the chain).
    func currentState(
        of observation: GooglePlayObservation, replaced: Bool, client: GooglePlayDeveloperAPI, packageName: String,
        app: StoredApp, observedAt: Instant
    ) async throws -> GooglePlayReading {
        var reading = GooglePlayReading(observation)
        guard observation.renewalInfo?.willAutoRenew != true, let token = observation.transaction.purchaseToken else {
            return reading
        }
        let key = ChainKey(
            environment: observation.environment, chainID: observation.transaction.chainID)
        guard let stored = try await store.chain(key, app: app) else { return reading }
        let replacedOnChain = stored.transactions.contains { $0.transaction.replacedPurchaseToken == token }
        guard replaced || replacedOnChain, let newest = stored.latestPurchaseToken, newest != token else {
            return reading
        }
        let purchase = try await client.subscriptionV2(packageName: packageName, token: newest)
        guard purchase.primaryLineItem?.productId != nil else { return reading }
        let successor = try purchase.observation(
            purchaseToken: newest, packageName: packageName, chainID: key.chainID,
            observedAt: observedAt)
        guard successor.environment == observation.environment else { return reading }
        reading.transactions.append(successor.transaction)
        reading.renewalInfo = successor.renewalInfo
        reading.newestTokenPurchase = (newest, purchase)
        return reading
    }

    /// Records a one-time product's token with its chain (its own order), for look-ups by token.
    func recordProductToken(_ token: String, of observation: GooglePlayObservation, app: StoredApp) async throws {
        try await tokens.record(
            token: token,
            chain: ChainKey(
                environment: observation.environment,
                chainID: observation.transaction.chainID),
            linkedPurchaseToken: nil, appID: app.appID)
    }

    /// A subscription token's chain, as `chain(of:…)` found it.
    struct FoundChain: Sendable {
        /// The chain's original transaction id.
        var chainID: String
        /// The tokens of the lineage before the read one that SubLedger met for the first time on the way, newest
        /// first, each with Google's answer for it: their orders are not on the ledger yet.
        var metTokens: [(token: String, purchase: SubscriptionPurchaseV2)]
    }

    /// The chain a subscription's token belongs to: where the token was recorded before; else the chain of the
    /// token it replaced (`linkedPurchaseToken`), that token read from Google and its own chain found the same way when
    /// SubLedger has not met it (a lineage first heard of at a later token still ends on the chain its first token
    /// names); else a new chain named by the purchase's first order id. Recorded before the apply: the first recording
    /// wins, so two submissions at once agree.
    func chain(
        of token: String, purchase: SubscriptionPurchaseV2, client: GooglePlayDeveloperAPI, packageName: String,
        app: StoredApp
    ) async throws -> FoundChain {
        var met: [(token: String, purchase: SubscriptionPurchaseV2)] = []
        let id = try await chain(
            of: token, purchase: purchase, client: client, packageName: packageName, app: app, depth: 0, met: &met)
        return FoundChain(chainID: id, metTokens: met)
    }

    /// The longest lineage followed back through tokens SubLedger has not met.
    static let maximumLineageWalk = 32

    private func chain(
        of token: String, purchase: SubscriptionPurchaseV2, client: GooglePlayDeveloperAPI, packageName: String,
        app: StoredApp, depth: Int, met: inout [(token: String, purchase: SubscriptionPurchaseV2)]
    ) async throws -> String {
        let environment: StoreEnvironment = purchase.isTestPurchase ? .sandbox : .production
        if let known = try await tokens.chain(ofToken: token, appID: app.appID) { return known.chainID }
        var chain: ChainKey?
        let linked = purchase.linkedPurchaseToken.flatMap { $0.isEmpty || $0 == token ? nil : String($0.prefix(1024)) }
        if let linked {
            chain = try await tokens.chain(ofToken: linked, appID: app.appID)
            if chain == nil, depth < Self.maximumLineageWalk,
                let replaced = try await replacedPurchase(linked, client: client, packageName: packageName)
            {
                met.append((linked, replaced))
                let root = try await self.chain(
                    of: linked, purchase: replaced, client: client, packageName: packageName, app: app,
                    depth: depth + 1, met: &met)
                chain = ChainKey(
                    environment: replaced.isTestPurchase ? .sandbox : .production, chainID: root)
            }
        }
        if chain == nil {
            guard let base = purchase.baseOrderID else {
                throw IngestionError(.purchaseNotCompleted, "Google names no order of the purchase yet")
            }
            chain = ChainKey(environment: environment, chainID: base)
        }
        guard let chain, chain.environment == environment else {
            throw IngestionError(.invalidPurchase, "the purchase replaces one of another environment")
        }
        let recorded = try await tokens.record(
            token: token, chain: chain, linkedPurchaseToken: linked, appID: app.appID)
        return recorded.chainID
    }

    /// The purchase a token replaced, as Google shows it now; `nil` when Google no longer has it (a token expired
    /// long ago answers 404 or 410): the lineage is then followed no further back, and the chain is named by the
    /// oldest token Google still has. Google failing is `google_play_unavailable`, tried again later.
    private func replacedPurchase(_ token: String, client: GooglePlayDeveloperAPI, packageName: String) async throws
        -> SubscriptionPurchaseV2?
    {
        let answer: Result<SubscriptionPurchaseV2, GooglePlayAPIError>
        do {
            answer = .success(try await client.subscriptionV2(packageName: packageName, token: token))
        } catch {
            answer = .failure(error)
        }
        switch answer {
        case .success(let purchase): return purchase
        case .failure(let error) where error.code == .notFound || error.code == .purchaseNoLongerAvailable: return nil
        case .failure(let error): throw error
        }
    }

    /// Google's error as the ingestion's refusal.
    static func refusal(_ error: GooglePlayAPIError) -> IngestionError {
        if error.isRetryable {
            return IngestionError(
                .googlePlayUnavailable,
                "Google Play is unavailable; the purchase is stored and will be credited when Google answers",
                retryAfter: .seconds(retryAfterSeconds))
        }
        switch error.code {
        case .notFound, .invalidArgument, .purchaseNoLongerAvailable:
            return IngestionError(.invalidPurchase, "Google Play knows no such purchase of this app (\(error.code))")
        case .unauthorized, .permissionDenied, .invalidGrant, .tokenExchangeRefused:
            return IngestionError(
                .googlePlayConfigurationError,
                "Google Play refused SubLedger's service account for this app; the purchase is stored and will be "
                    + "verified again", retryAfter: .seconds(retryAfterSeconds))
        default:
            return IngestionError(
                .googlePlayUnavailable,
                "Google Play's answer could not be used (\(error.code)); the purchase is stored",
                retryAfter: .seconds(retryAfterSeconds))
        }
    }

    @discardableResult
    private func mark(_ id: Int64, failed reason: String, retryable: Bool) async throws
        -> LedgerStore.StoredInputFailure
    {
        let marked = try await store.markSubmission(id, failed: reason, retryable: retryable, now: now())
        if marked.status == "quarantined" { StoredInputMetrics.quarantined("receipt") }
        return marked
    }
}
