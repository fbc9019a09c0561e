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
        /// The wait before attempt `attempt + 1` of a call that failed transiently: 0.5 s, 1 s, 2 s, ... (the caller
        /// caps it at `maximumBackoff`).
        public func backoff(_ attempt: Int) -> Duration {
            .milliseconds(500 * (1 << min(max(attempt, 1) - 1, 10)))
        }

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

    /// The ledger the rows are applied to.
    let ledger: LedgerStore
    let now: @Sendable () -> Instant
    /// The App Store's rows (transaction ids, receipts), read back from Apple (`StoreRegistration.rowImport`).
    let appStore: (any StoreRowImport)?
    /// Google Play's port, for a Google Play file: each row's purchase submitted as its account's.
    let googlePlay: (any StorePort)?
    /// The web stores' subscriptions read back, for a file of one's subscriptions (`StoreRegistration.subscriptionImport`),
    /// by store.
    let subscriptionImports: [Store: any StoreSubscriptionImport]
    let checkpoints: ImportCheckpointStore
    let app: StoredApp
    let configuration: Configuration
    let logger: Logger

    public init(
        ledger: LedgerStore, now: @escaping @Sendable () -> Instant, appStore: (any StoreRowImport)?,
        googlePlay: (any StorePort)? = nil, subscriptionImports: [Store: any StoreSubscriptionImport] = [:],
        app: StoredApp,
        configuration: Configuration = Configuration(), logger: Logger = Logger(label: "subledger.import")
    ) throws(ImportError) {
        try configuration.validate()
        self.ledger = ledger
        self.now = now
        self.appStore = appStore
        self.googlePlay = googlePlay
        self.subscriptionImports = subscriptionImports
        self.checkpoints = ImportCheckpointStore(pool: ledger.pool)
        self.app = app
        self.configuration = configuration
        self.logger = logger
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

        let gate = ImportRateGate(requestsPerSecond: configuration.requestsPerSecond)
        let limit = configuration.stopAfterRows.map { min($0, pending.count) } ?? pending.count
        var interrupted = limit < pending.count
        var next = 0
        try await withThrowingTaskGroup(of: (ImportRow, Result<ImportedRow, ImportRowError>).self) { group in
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

    func importRow(_ row: ImportRow, gate: ImportRateGate) async -> Result<ImportedRow, ImportRowError> {
        do {
            switch row.source {
            case .chainID, .receipt:
                guard let appStore, appStore.reads(row.source) else {
                    throw ImportRowError(
                        row.lineNumber,
                        .importFailed(
                            code: "app_misconfigured", message: "this process is not configured for the App Store"))
                }
                return .success(try await appStore.importRow(row, app: app, gate: gate, configuration: configuration))
            case .googlePurchase(let token, let productID):
                return .success(try await importGooglePurchase(token, productID: productID, row: row, gate: gate))
            case .storeSubscription(let store, let id):
                return .success(try await importSubscription(id, of: store, row: row, gate: gate))
            }
        } catch let error as ImportRowError {
            return .failure(error)
        } catch let error as IngestionError {
            return .failure(
                ImportRowError(row.lineNumber, .importFailed(code: error.code.rawValue, message: error.message)))
        } catch let conflict as AccountErasureConflict {
            // An erased id is refused as every write naming it is (docs/guides/accounts.md, "Erasing an account").
            let error = ErasureError(conflict)
            return .failure(
                ImportRowError(row.lineNumber, .importFailed(code: error.code.rawValue, message: error.message)))
        } catch is CancellationError {
            return .failure(
                ImportRowError(row.lineNumber, .importFailed(code: "cancelled", message: "the import was interrupted")))
        } catch {
            // The App Store's own failures (Apple's API errors, answers that cannot be read) in its words.
            return .failure(
                ImportRowError(row.lineNumber, appStore?.reason(for: error) ?? Self.reason(forUnexpected: error)))
        }
    }

    /// Any other failure of a row: `import_failed` with a message for people that says what failed, never
    /// Swift's rendering of an internal value.
    static func reason(forUnexpected error: any Error) -> ImportRowError.Reason {
        let message: String
        switch error {
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

    /// Refuses the row when the ownership rule kept the applied chain `chain` with another account than the row's
    /// (or the account the row's was merged into). The reason, stored in `import_rows`, does not name the owner: an
    /// erasure of the owner could not find its id in the text (support's lookup of the chain names the owner). A chain the rule moved to the row's account is the row's: its
    /// earlier transactions stay credited to their accounts, as with any transfer, and the row is done.
    public static func refuseIfOwnedElsewhere(_ applied: LedgerStore.Applied, chain: String, row: ImportRow) throws {
        let claimant = applied.submitter ?? row.account
        let owner = applied.decision.updatedChains.first { $0.header.key.chainID == chain }?.header.owner
        guard let owner, owner != claimant else { return }
        throw ownedElsewhere(chain, row: row)
    }

    /// Refuses the row when a submission it made (a receipt, a purchase token) left one of its chains with another
    /// account: what the row reports is what was written.
    public static func refuseIfOwnedElsewhere(_ outcomes: [TransactionOutcome], row: ImportRow) throws(ImportRowError) {
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

    /// Submits the row's purchase token for its account through the normal Google Play path: read from the
    /// Developer API, applied with the account as submitter, acknowledged through the outbox if it was not yet.
    private func importGooglePurchase(_ token: String, productID: String, row: ImportRow, gate: ImportRateGate)
        async throws -> ImportedRow
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
                return ImportedRow(
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

    /// Reads the row's subscription of a web store (Stripe's with its invoices, payments, refunds and disputes) from
    /// the store's API and applies it as a first claim by the row's account, as a chain's history from Apple is; its
    /// later events then reach the chain's owner.
    private func importSubscription(_ id: String, of store: Store, row: ImportRow, gate: ImportRateGate) async throws
        -> ImportedRow
    {
        guard let importer = subscriptionImports[store], importer.isConfigured(for: app),
            app.definition.products.contains(where: { $0.store == store })
        else {
            throw ImportRowError(
                row.lineNumber,
                .importFailed(
                    code: "app_not_on_store",
                    message: "\(app.bundleID) has no \(store.displayName) account or sells nothing there"))
        }
        var attempt = 0
        while true {
            attempt += 1
            try await gate.admit()
            do {
                let read = try await importer.input(subscription: id, app: app, observedAt: now())
                guard var input = read, !input.transactions.isEmpty else {
                    throw ImportRowError(
                        row.lineNumber,
                        .importFailed(
                            code: "not_sold_on_store",
                            message: "the subscription \(id) is another app's or holds no price of a product "
                                + "\(app.bundleID) sells through \(store.displayName)"))
                }
                input.submitter = row.account
                let applied = try await ledger.apply(input, app: app, now: now())
                LedgerMetrics.record(applied)
                try Self.refuseIfOwnedElsewhere(applied, chain: id, row: row)
                return ImportedRow(
                    chains: 1, transactions: Set(input.transactions.map(\.transactionID)).count, chainID: id)
            } catch let error as IngestionError where error.isTransient && attempt < configuration.maximumAttempts {
                let delay = min(error.retryAfter ?? backoff(attempt), configuration.maximumBackoff)
                logger.debug(
                    "store unavailable; waiting",
                    metadata: ["store": "\(store.rawValue)", "line": "\(row.lineNumber)", "delay": "\(delay)"])
                gate.pause(for: delay)
            }
        }
    }

    /// 0.5 s, 1 s, 2 s, ... (capped by `maximumBackoff`).
    private func backoff(_ attempt: Int) -> Duration {
        configuration.backoff(attempt)
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
        case .storeSubscription(let store, let id):
            what = "read the \(store.displayName) subscription \(id) from the \(store.displayName) API"
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
