import AppStore
import AppStoreClients
import Logging
import SubLedgerCore
import SubLedgerStore
import SubLedgerUseCases

/// The App Store's rows of `subledger import`: a chain's whole history read from the App Store Server API (Get
/// Transaction History, every page, and Get All Subscription Statuses) and applied as a first claim by the row's
/// account, or a receipt submitted for the account through verifyReceipt. Every call goes through the gateway (its
/// circuit breaker and metrics); a 429 pauses every worker until Apple's `Retry-After`.
struct AppStoreRowImport: StoreRowImport {
    let ingestion: Ingestion
    let logger: Logger

    func reads(_ source: ImportRow.Source) -> Bool {
        switch source {
        case .chainID, .receipt: true
        default: false
        }
    }

    func importRow(
        _ row: ImportRow, app: StoredApp, gate: ImportRateGate, configuration: MigrationImporter.Configuration
    ) async throws -> ImportedRow {
        switch row.source {
        case .chainID(let id): try await importChain(id, row: row, app: app, gate: gate, configuration: configuration)
        case .receipt(let receiptData):
            try await importReceipt(receiptData, row: row, app: app, gate: gate, configuration: configuration)
        default:
            throw ImportRowError(
                row.lineNumber,
                .importFailed(code: "app_misconfigured", message: "another store's row reached the App Store's import"))
        }
    }

    func reason(for error: any Error) -> ImportRowError.Reason? {
        Self.reason(describing: error)
    }

    /// Apple's API errors and its answers that cannot be read, in the words of docs/reference/errors.md; `nil` for
    /// any other failure.
    static func reason(describing error: any Error) -> ImportRowError.Reason? {
        switch error {
        case let error as AppStoreServerAPIError:
            Self.reason(for: error)
        case let error as PayloadMappingError:
            .importFailed(
                code: "import_failed",
                message:
                    "Apple's answer for the chain could not be read: \(Self.meaning(of: error.code)) (\(error.field))")
        default:
            nil
        }
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
    private func importChain(
        _ id: String, row: ImportRow, app: StoredApp, gate: ImportRateGate,
        configuration: MigrationImporter.Configuration
    ) async throws -> ImportedRow {
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
        let call = Caller(ingestion: ingestion, gate: gate, row: row, configuration: configuration, logger: logger)
        var history: [JWSTransactionDecodedPayload] = []
        var revision: String?
        for _ in 0..<client.configuration.maximumPages {
            let page = try await call(.transactionHistory) { () async throws(AppStoreServerAPIError) in
                try await client.transactionHistory(transactionID: id, revision: revision)
            }
            history += page.transactions
            guard page.hasMore, let nextRevision = page.revision, nextRevision != revision else { break }
            revision = nextRevision
        }
        let statuses = try await call(.subscriptionStatuses) { () async throws(AppStoreServerAPIError) in
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
        try MigrationImporter.refuseIfOwnedElsewhere(applied, chain: original, row: row)
        return ImportedRow(chains: 1, transactions: Set(transactions.map(\.transactionID)).count, chainID: original)
    }

    /// Submits the row's receipt for its account through the normal verifyReceipt path.
    private func importReceipt(
        _ receiptData: String, row: ImportRow, app: StoredApp, gate: ImportRateGate,
        configuration: MigrationImporter.Configuration
    ) async throws -> ImportedRow {
        var attempt = 0
        while true {
            attempt += 1
            try await gate.admit()
            do {
                let outcome = try await ingestion.submitReceipt(
                    receiptData, account: row.account, orderID: nil, clientTransactionID: nil, app: app)
                let chains = Set(outcome.outcomes.map(\.chainID))
                try MigrationImporter.refuseIfOwnedElsewhere(outcome.outcomes, row: row)
                return ImportedRow(
                    chains: chains.count, transactions: outcome.outcomes.count, chainID: chains.sorted().first)
            } catch let error as IngestionError where error.isTransient && attempt < configuration.maximumAttempts {
                let delay = min(error.retryAfter ?? configuration.backoff(attempt), configuration.maximumBackoff)
                logger.debug(
                    "verifyReceipt unavailable; waiting", metadata: ["line": "\(row.lineNumber)", "delay": "\(delay)"])
                gate.pause(for: delay)
            }
        }
    }

    /// Calls Apple through the gateway (its circuit breaker and metrics), waiting on 429 for `Retry-After` and
    /// while the breaker is open (all workers pause) and backing off on other retryable failures.
    private struct Caller {
        let ingestion: Ingestion
        let gate: ImportRateGate
        let row: ImportRow
        let configuration: MigrationImporter.Configuration
        let logger: Logger

        func callAsFunction<Value: Sendable>(
            _ endpoint: AppleCallMetrics.Endpoint, _ call: () async throws(AppStoreServerAPIError) -> Value
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
                var delay = configuration.backoff(attempt)
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
    }
}
