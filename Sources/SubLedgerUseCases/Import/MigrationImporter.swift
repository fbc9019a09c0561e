import AppStore
import AppStoreClients
import Foundation
import Logging
import PostgresLibPQ
import SubLedgerCore
import SubLedgerStore
import Synchronization

/// Moves existing subscribers onto SubLedger: for each row of an `ImportFile`, fetches the chain's whole
/// history from the App Store Server API (or verifies the row's receipt) and applies it through the ledger
/// with the row's account as submitter, so the ownership rule records it as that account's first claim.
///
/// Every finished row is checkpointed in `import_rows`, so a run that crashed or was cancelled resumes
/// where it stopped; applying a chain again changes nothing, because the ledger is idempotent.
public struct MigrationImporter: Sendable {
    /// How the import runs.
    public struct Configuration: Sendable {
        /// Rows imported at the same time. Default 4; 1 to 64.
        public var concurrency: Int
        /// Print what would happen; write nothing and call nothing.
        public var dryRun: Bool
        /// Pace Apple calls to at most this many per second; `nil` (default): only back off on 429.
        public var requestsPerSecond: Double?
        /// Tries of one Apple call before the row fails (429s, 5xx, timeouts). Default 12.
        public var maximumAttempts: Int
        /// The longest single wait, whatever `Retry-After` says. Default 60 seconds.
        public var maximumBackoff: Duration
        /// Stop after handling this many rows (as if interrupted); for tests of resuming. Default nil.
        public var stopAfterRows: Int?

        public init(
            concurrency: Int = 4, dryRun: Bool = false, requestsPerSecond: Double? = nil, maximumAttempts: Int = 12,
            maximumBackoff: Duration = .seconds(60), stopAfterRows: Int? = nil
        ) {
            self.concurrency = concurrency
            self.dryRun = dryRun
            self.requestsPerSecond = requestsPerSecond
            self.maximumAttempts = maximumAttempts
            self.maximumBackoff = maximumBackoff
            self.stopAfterRows = stopAfterRows
        }

        /// Refuses options out of range.
        public func validate() throws(ImportError) {
            guard (1...64).contains(concurrency) else {
                throw ImportError(.invalidOption, "concurrency must be 1 to 64")
            }
            if let requestsPerSecond, !(requestsPerSecond > 0 && requestsPerSecond <= 10_000) {
                throw ImportError(.invalidOption, "requests per second must be above 0 and at most 10000")
            }
            guard (1...1000).contains(maximumAttempts) else {
                throw ImportError(.invalidOption, "maximum attempts must be 1 to 1000")
            }
            if let stopAfterRows, stopAfterRows < 0 {
                throw ImportError(.invalidOption, "stop after must not be negative")
            }
        }
    }

    let ingestion: Ingestion
    /// Google Play's port, for a Google Play file: each row's purchase submitted as its account's.
    let googlePlay: (any StorePort)?
    /// Stripe's subscriptions read back, for a Stripe file (`StoreRegistration.subscriptionImport`).
    let stripe: (any StoreSubscriptionImport)?
    let checkpoints: ImportCheckpointStore
    let app: StoredApp
    let configuration: Configuration
    let logger: Logger

    public init(
        ingestion: Ingestion, googlePlay: (any StorePort)? = nil, stripe: (any StoreSubscriptionImport)? = nil,
        app: StoredApp,
        configuration: Configuration = Configuration(), logger: Logger = Logger(label: "subledger.import")
    ) throws(ImportError) {
        try configuration.validate()
        self.ingestion = ingestion
        self.googlePlay = googlePlay
        self.stripe = stripe
        self.checkpoints = ImportCheckpointStore(pool: ingestion.store.pool)
        self.app = app
        self.configuration = configuration
        self.logger = logger
    }

    /// What importing one row did.
    struct RowResult: Sendable {
        var chains: Int
        var transactions: Int
        var chainID: String?
    }

    /// Imports `file`, calling `progress` after every row; returns the summary. Cancelling the task stops
    /// it between rows (rows in flight finish or are redone on the next run).
    public func run(
        _ file: ImportFile, fileName: String, progress report: @escaping @Sendable (ImportProgress) -> Void = { _ in }
    ) async throws -> ImportSummary {
        let clock = ContinuousClock()
        let started = clock.now
        var progress = ImportProgress(totalRows: file.totalRows)
        var failures = file.refused
        let existingRun = try await checkpoints.run(fileDigest: file.digest)
        let runID: Int64?
        var recorded: [Int: ImportCheckpointStore.RowRecord] = [:]
        if configuration.dryRun {
            runID = existingRun?.runID
        } else {
            runID = try await checkpoints.startRun(
                fileDigest: file.digest, fileName: fileName, totalRows: file.totalRows
            ).runID
        }
        if let runID { recorded = try await checkpoints.rows(of: runID) }
        progress.rowsFailed = file.refused.count
        if !configuration.dryRun, let runID {
            for refusal in file.refused {
                try await checkpoints.record(
                    runID: runID, lineNumber: refusal.lineNumber, status: .failed, accountID: "",
                    chainID: nil, transactions: 0, reason: refusal.description)
            }
        }
        var pending: [ImportRow] = []
        for row in file.rows {
            if recorded[row.lineNumber]?.status == .done {
                progress.rowsSkipped += 1
            } else {
                pending.append(row)
            }
        }
        if configuration.dryRun {
            var plan = failures.sorted { $0.lineNumber < $1.lineNumber }.map {
                "line \($0.lineNumber): refused: \($0.reason.code): \($0.reason.message)"
            }
            for row in file.rows {
                plan.append(Self.describe(row, done: recorded[row.lineNumber]?.status == .done, app: app))
            }
            progress.elapsedSeconds = Self.seconds(started.duration(to: clock.now))
            return ImportSummary(progress: progress, failures: failures, plan: plan, interrupted: false, dryRun: true)
        }
        guard let runID else { throw ImportError(.invalidFile, "the import run could not be recorded") }
        report(progress)

        let gate = AppleRateGate(requestsPerSecond: configuration.requestsPerSecond)
        let limit = configuration.stopAfterRows.map { min($0, pending.count) } ?? pending.count
        var interrupted = limit < pending.count
        var next = 0
        try await withThrowingTaskGroup(of: (ImportRow, Result<RowResult, ImportRowError>).self) { group in
            func launch() {
                let row = pending[next]
                next += 1
                group.addTask { (row, await importRow(row, gate: gate)) }
            }
            while next < limit, next < configuration.concurrency { launch() }
            while let (row, result) = try await group.next() {
                switch result {
                case .success(let done):
                    try await checkpoints.record(
                        runID: runID, lineNumber: row.lineNumber, status: .done, accountID: row.account.rawValue,
                        chainID: done.chainID, transactions: done.transactions,
                        reason: nil)
                    progress.rowsOK += 1
                    progress.chains += done.chains
                    progress.transactions += done.transactions
                case .failure where Task.isCancelled:
                    // Cut short by the interruption, not failed: the next run does it again.
                    interrupted = true
                case .failure(let error):
                    // A row naming an erased id is recorded without it: the erasure removed the id everywhere.
                    let erased = error.reason.code == ErasureError.Code.accountErased.rawValue
                    try await checkpoints.record(
                        runID: runID, lineNumber: row.lineNumber, status: .failed,
                        accountID: erased ? "" : row.account.rawValue, chainID: row.chainID, transactions: 0,
                        reason: error.description)
                    progress.rowsFailed += 1
                    failures.append(error)
                }
                progress.elapsedSeconds = Self.seconds(started.duration(to: clock.now))
                report(progress)
                if Task.isCancelled {
                    interrupted = true
                } else if next < limit {
                    launch()
                }
            }
        }
        if !interrupted, progress.rowsDone == progress.totalRows { try await checkpoints.finish(runID: runID) }
        progress.elapsedSeconds = Self.seconds(started.duration(to: clock.now))
        failures.sort { $0.lineNumber < $1.lineNumber }
        return ImportSummary(progress: progress, failures: failures, plan: [], interrupted: interrupted, dryRun: false)
    }

    // MARK: One row

    func importRow(_ row: ImportRow, gate: AppleRateGate) async -> Result<RowResult, ImportRowError> {
        do {
            switch row.source {
            case .chainID(let id):
                return .success(try await importChain(id, row: row, gate: gate))
            case .receipt(let receiptData):
                return .success(try await importReceipt(receiptData, row: row, gate: gate))
            case .googlePurchase(let token, let productID):
                return .success(try await importGooglePurchase(token, productID: productID, row: row, gate: gate))
            case .stripeSubscription(let id):
                return .success(try await importStripeSubscription(id, row: row, gate: gate))
            }
        } catch let error as ImportRowError {
            return .failure(error)
        } catch let error as IngestionError {
            return .failure(
                ImportRowError(row.lineNumber, .importFailed(code: error.code.rawValue, message: error.message)))
        } catch let error as AppStoreServerAPIError {
            return .failure(ImportRowError(row.lineNumber, Self.reason(for: error)))
        } catch let conflict as AccountErasureConflict {
            // An erased id is refused as every write naming it is (docs/guides/accounts.md, "Erasing an account").
            let error = ErasureError(conflict)
            return .failure(
                ImportRowError(row.lineNumber, .importFailed(code: error.code.rawValue, message: error.message)))
        } catch is CancellationError {
            return .failure(
                ImportRowError(row.lineNumber, .importFailed(code: "cancelled", message: "the import was interrupted")))
        } catch {
            return .failure(ImportRowError(row.lineNumber, Self.reason(forUnexpected: error)))
        }
    }

    /// Any other failure of a row: `import_failed` with a message for people that says what failed, never
    /// Swift's rendering of an internal value.
    static func reason(forUnexpected error: any Error) -> ImportRowError.Reason {
        let message: String
        switch error {
        case let error as PayloadMappingError:
            message = "Apple's answer for the chain could not be read: \(Self.meaning(of: error.code)) (\(error.field))"
        case let error as StoreError:
            message = "the ledger refused the chain: \(error.message)"
        case let error as PostgresError:
            message = "the database failed while applying the chain: \(error.message)"
        case let error as ImportRowError:
            return error.reason
        default:
            message = "an unexpected failure while importing the chain"
        }
        return .importFailed(code: "import_failed", message: message)
    }

    private static func meaning(of code: PayloadMappingError.Code) -> String {
        switch code {
        case .missingField: "a required field is missing"
        case .unknownEnvironment: "the environment is missing or not one of Apple's"
        case .dateOutOfRange: "a date is out of range"
        case .invalidIdentifier: "an identifier is not one Apple issues"
        case .valueOutOfRange: "a value is out of range"
        default: "a field is not as Apple documents it"
        }
    }

    /// How a failed App Store Server API call is reported for a row: the same snake_case codes as the rest of
    /// SubLedger (docs/reference/errors.md), and a message that says what Apple answered.
    static func reason(for error: AppStoreServerAPIError) -> ImportRowError.Reason {
        let apple = [
            error.apiErrorCode.map { "Apple error \($0)" }, error.httpStatus.map { "HTTP \($0)" },
        ].compactMap { $0 }.joined(separator: ", ")
        let answered = apple.isEmpty ? "" : " (\(apple))"
        switch error.code {
        case .transactionIDNotFound:
            return .importFailed(
                code: "transaction_id_not_found",
                message: "Apple knows no such transaction in this environment\(answered)")
        case .rateLimited:
            return .importFailed(
                code: "apple_rate_limited", message: "Apple kept refusing calls as too many\(answered)")
        case .serverError, .timeout, .connectionError:
            return .importFailed(
                code: IngestionError.Code.appleUnavailable.rawValue,
                message: "Apple did not answer for every allowed attempt\(answered)")
        case .unauthorized, .invalidConfiguration:
            return .importFailed(
                code: IngestionError.Code.appleConfigurationError.rawValue,
                message: "Apple refused SubLedger's App Store Server API key for this app\(answered)")
        default:
            return .importFailed(
                code: IngestionError.Code.serverAPIRefused.rawValue,
                message: "the App Store Server API refused the request\(answered)")
        }
    }

    /// Fetches the chain's history (every page) and statuses, and applies them as a first claim by the row's account.
    private func importChain(_ id: String, row: ImportRow, gate: AppleRateGate) async throws -> RowResult {
        let environment = row.environment ?? .production
        let client: AppStoreServerAPIClient
        do {
            _ = try ingestion.apple.verifier(for: app, environment: environment)
            guard let configured = try ingestion.apple.serverAPIClient(for: app, environment: environment) else {
                throw ImportRowError(
                    row.lineNumber,
                    .importFailed(
                        code: "no_server_api_key", message: "the app \(app.bundleID) has no App Store Server API key"))
            }
            client = configured
        } catch let error as AppleGatewayError {
            throw IngestionError(error)
        }
        var history: [JWSTransactionDecodedPayload] = []
        var revision: String?
        for _ in 0..<client.configuration.maximumPages {
            let page = try await calling(.transactionHistory, gate, row) { () async throws(AppStoreServerAPIError) in
                try await client.transactionHistory(transactionID: id, revision: revision)
            }
            history += page.transactions
            guard page.hasMore, let nextRevision = page.revision, nextRevision != revision else { break }
            revision = nextRevision
        }
        let statuses = try await calling(.subscriptionStatuses, gate, row) { () async throws(AppStoreServerAPIError) in
            try await client.allSubscriptionStatuses(transactionID: id)
        }
        // Apple's history is the customer's whole history in the app; the row names one chain.
        let original = history.first { $0.transactionID == id }?.originalTransactionID ?? id
        let transactions = try history.filter { $0.originalTransactionID == original }
            .map { try $0.coreTransaction(source: .serverAPI) }
        guard !transactions.isEmpty else {
            throw ImportRowError(
                row.lineNumber,
                .importFailed(
                    code: "transaction_id_not_found",
                    message: "Apple knows no transactions of \(id) in \(environment.rawValue)"))
        }
        var renewals: [RenewalInfo] = []
        var latest: [Transaction] = []
        for status in statuses.groups.flatMap(\.lastTransactions) where status.originalTransactionID == original {
            if let renewal = try status.renewalInfo?.coreRenewalInfo() { renewals.append(renewal) }
            if let transaction = try status.transaction?.coreTransaction(source: .serverAPI) {
                latest.append(transaction)
            }
        }
        let all = transactions + latest
        guard all.count + renewals.count <= LedgerInput.maximumItems else {
            throw ImportRowError(
                row.lineNumber,
                .importFailed(
                    code: "chain_too_long", message: "the chain has more than \(LedgerInput.maximumItems) transactions")
            )
        }
        let input = LedgerInput(
            kind: .import, bundleID: app.bundleID, environment: environment, submitter: row.account,
            transactions: all, renewalInfo: renewals, observedAt: ingestion.now())
        let applied = try await ingestion.store.apply(input, app: app, now: ingestion.now())
        LedgerMetrics.record(applied)
        try Self.refuseIfOwnedElsewhere(applied, chain: original, row: row)
        return RowResult(
            chains: 1, transactions: Set(transactions.map(\.transactionID)).count, chainID: original)
    }

    /// Refuses the row when the ownership rule kept the applied chain `chain` with another account than the row's
    /// (or the account the row's was merged into). The reason, stored in `import_rows`, does not name the owner: an
    /// erasure of the owner could not find its id in the text (support's lookup of the chain names the owner). A chain the rule moved to the row's account is the row's: its
    /// earlier transactions stay credited to their accounts, as with any transfer, and the row is done.
    static func refuseIfOwnedElsewhere(_ applied: LedgerStore.Applied, chain: String, row: ImportRow) throws {
        let claimant = applied.submitter ?? row.account
        let owner = applied.decision.updatedChains.first { $0.header.key.chainID == chain }?.header.owner
        guard let owner, owner != claimant else { return }
        throw ownedElsewhere(chain, row: row)
    }

    /// Refuses the row when a submission it made (a receipt, a purchase token) left one of its chains with another
    /// account: what the row reports is what was written.
    static func refuseIfOwnedElsewhere(_ outcomes: [TransactionOutcome], row: ImportRow) throws(ImportRowError) {
        for outcome in outcomes {
            if case .belongsToAnotherAccount = outcome.result { throw ownedElsewhere(outcome.chainID, row: row) }
        }
    }

    /// `owned_by_another_account` for `chain`, without naming the owner.
    static func ownedElsewhere(_ chain: String, row: ImportRow) -> ImportRowError {
        ImportRowError(
            row.lineNumber,
            .importFailed(
                code: "owned_by_another_account",
                message: "the chain \(chain) is owned by another account; the ownership rule kept it"))
    }

    /// Submits the row's receipt for its account through the normal verifyReceipt path.
    private func importReceipt(_ receiptData: String, row: ImportRow, gate: AppleRateGate) async throws -> RowResult {
        var attempt = 0
        while true {
            attempt += 1
            try await gate.admit()
            do {
                let outcome = try await ingestion.submitReceipt(
                    receiptData, account: row.account, orderID: nil, clientTransactionID: nil, app: app)
                let chains = Set(outcome.outcomes.map(\.chainID))
                try Self.refuseIfOwnedElsewhere(outcome.outcomes, row: row)
                return RowResult(
                    chains: chains.count, transactions: outcome.outcomes.count,
                    chainID: chains.sorted().first)
            } catch let error as IngestionError where error.isTransient && attempt < configuration.maximumAttempts {
                let delay = min(error.retryAfter ?? backoff(attempt), configuration.maximumBackoff)
                logger.debug(
                    "verifyReceipt unavailable; waiting", metadata: ["line": "\(row.lineNumber)", "delay": "\(delay)"])
                gate.pause(for: delay)
            }
        }
    }

    /// Submits the row's purchase token for its account through the normal Google Play path: read from the
    /// Developer API, applied with the account as submitter, acknowledged through the outbox if it was not yet.
    private func importGooglePurchase(_ token: String, productID: String, row: ImportRow, gate: AppleRateGate)
        async throws -> RowResult
    {
        guard let googlePlay, let packageName = app.definition.googlePlay?.packageName else {
            throw ImportRowError(
                row.lineNumber,
                .importFailed(code: "app_not_on_google_play", message: "\(app.bundleID) has no google_play listing"))
        }
        var attempt = 0
        while true {
            attempt += 1
            try await gate.admit()
            do {
                let outcome = try await googlePlay.submit(
                    StoreSubmission(
                        account: row.account,
                        artifact: .googlePlayPurchase(
                            packageName: packageName, productID: productID, purchaseToken: token)),
                    app: app)
                let chains = Set(outcome.outcomes.map(\.chainID))
                try Self.refuseIfOwnedElsewhere(outcome.outcomes, row: row)
                return RowResult(
                    chains: chains.count, transactions: outcome.outcomes.count,
                    chainID: chains.sorted().first)
            } catch let error as IngestionError where error.isTransient && attempt < configuration.maximumAttempts {
                let delay = min(error.retryAfter ?? backoff(attempt), configuration.maximumBackoff)
                logger.debug(
                    "Google Play unavailable; waiting", metadata: ["line": "\(row.lineNumber)", "delay": "\(delay)"])
                gate.pause(for: delay)
            }
        }
    }

    /// Reads the row's Stripe subscription (its invoices, payments, refunds and disputes) from the Stripe API and
    /// applies it as a first claim by the row's account, as a chain's history from Apple is; its later events then
    /// reach the chain's owner.
    private func importStripeSubscription(_ id: String, row: ImportRow, gate: AppleRateGate) async throws -> RowResult {
        guard let stripe, stripe.isConfigured(for: app),
            app.definition.products.contains(where: { $0.store == .stripe })
        else {
            throw ImportRowError(
                row.lineNumber,
                .importFailed(
                    code: "app_not_on_stripe", message: "\(app.bundleID) has no Stripe account or sells nothing there"))
        }
        var attempt = 0
        while true {
            attempt += 1
            try await gate.admit()
            do {
                let read = try await stripe.input(subscription: id, app: app, observedAt: ingestion.now())
                guard var input = read, !input.transactions.isEmpty else {
                    throw ImportRowError(
                        row.lineNumber,
                        .importFailed(
                            code: "not_sold_on_stripe",
                            message: "the subscription \(id) is another app's or holds no price of a product "
                                + "\(app.bundleID) sells through Stripe"))
                }
                input.submitter = row.account
                let applied = try await ingestion.store.apply(input, app: app, now: ingestion.now())
                LedgerMetrics.record(applied)
                try Self.refuseIfOwnedElsewhere(applied, chain: id, row: row)
                return RowResult(
                    chains: 1, transactions: Set(input.transactions.map(\.transactionID)).count, chainID: id)
            } catch let error as IngestionError where error.isTransient && attempt < configuration.maximumAttempts {
                let delay = min(error.retryAfter ?? backoff(attempt), configuration.maximumBackoff)
                logger.debug(
                    "Stripe unavailable; waiting", metadata: ["line": "\(row.lineNumber)", "delay": "\(delay)"])
                gate.pause(for: delay)
            }
        }
    }

    /// Calls Apple through the gateway (its circuit breaker and metrics), waiting on 429 for `Retry-After` and
    /// while the breaker is open (all workers pause) and backing off on other retryable failures.
    private func calling<Value: Sendable>(
        _ endpoint: AppleCallMetrics.Endpoint, _ gate: AppleRateGate, _ row: ImportRow,
        _ call: () async throws(AppStoreServerAPIError) -> Value
    ) async throws -> Value {
        var attempt = 0
        while true {
            attempt += 1
            try await gate.admit()
            let failure: AppStoreServerAPIError
            do {
                return try await ingestion.apple.callServerAPI(endpoint, call)
            } catch .notCalled(let wait) {
                guard attempt < configuration.maximumAttempts else {
                    throw AppStoreServerAPIError(.serverError)
                }
                logger.debug(
                    "Apple is not called now (circuit breaker or busy); waiting",
                    metadata: ["line": "\(row.lineNumber)", "delay": "\(wait)"])
                gate.pause(for: min(wait, configuration.maximumBackoff))
                continue
            } catch .apple(let error) {
                failure = error
            }
            guard failure.isRetryable, attempt < configuration.maximumAttempts else { throw failure }
            var delay = backoff(attempt)
            if failure.code == .rateLimited, let retryAfter = failure.retryAfter {
                let milliseconds = retryAfter.millisecondsSince1970 - Instant.systemNow().millisecondsSince1970
                delay = .milliseconds(max(50, milliseconds))
            }
            let wait = min(delay, configuration.maximumBackoff)
            logger.debug(
                "Apple asked to wait",
                metadata: ["line": "\(row.lineNumber)", "code": "\(failure.code)", "delay": "\(wait)"])
            ImportMetrics.recordBackoff(rateLimited: failure.code == .rateLimited)
            gate.pause(for: wait)
        }
    }

    /// 0.5 s, 1 s, 2 s, ... (capped by `maximumBackoff`).
    private func backoff(_ attempt: Int) -> Duration {
        .milliseconds(500 * (1 << min(attempt - 1, 10)))
    }

    static func describe(_ row: ImportRow, done: Bool, app: StoredApp) -> String {
        let what: String
        switch row.source {
        case .chainID(let id):
            what =
                "fetch the history of chain \(id) (\(row.environment?.rawValue ?? "?")) from the App Store Server API"
        case .receipt:
            what = "verify an app receipt with verifyReceipt"
        case .googlePurchase(_, let productID):
            what = "read a Google Play purchase of \(productID) from the Developer API"
        case .stripeSubscription(let id):
            what = "read the Stripe subscription \(id) from the Stripe API"
        }
        if done {
            return "line \(row.lineNumber): skip (done by an earlier run): \(what) for account \(row.account.rawValue)"
        }
        return
            "line \(row.lineNumber): would \(what) and apply it to \(app.bundleID) as a first claim by account \(row.account.rawValue)"
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
