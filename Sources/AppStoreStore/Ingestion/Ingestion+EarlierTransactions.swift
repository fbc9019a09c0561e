import AppStore
import AppStoreClients
import SubLedgerCore
import SubLedgerStore
import SubLedgerUseCases

extension Ingestion {
    /// The chains of `input` that SubLedger first hears of through a later transaction, each with the earliest of its
    /// transactions that arrived: an App Store chain of which the input holds no transaction whose id is the chain's
    /// original transaction id (a DID_RENEW whose earlier notifications were lost, a renewal's StoreKit 2 transaction
    /// submitted first), and that the ledger does not hold. Empty, without a database read, for an app without App
    /// Store Server API credentials (nothing could be read) and for an input that holds each chain's first
    /// transaction (a purchase, a receipt with its whole history).
    func firstContacts(in input: LedgerInput, app: StoredApp) async throws -> [(key: ChainKey, arrived: Transaction)] {
        guard app.serverAPI != nil else { return [] }
        var earliest: [ChainKey: Transaction] = [:]
        var holdsFirst: Set<ChainKey> = []
        for transaction in input.transactions where transaction.store == .appStore {
            let key = transaction.chainKey
            if transaction.transactionID == transaction.chainID { holdsFirst.insert(key) }
            if let known = earliest[key], known.purchaseDate <= transaction.purchaseDate { continue }
            earliest[key] = transaction
        }
        var contacts: [(key: ChainKey, arrived: Transaction)] = []
        for (key, arrived) in earliest.sorted(by: { $0.key < $1.key }) where !holdsFirst.contains(key) {
            if try await !store.isChainStored(key, app: app) { contacts.append((key, arrived)) }
        }
        return contacts
    }

    /// `input` with the earlier transactions of each chain in `contacts` (see `firstContacts(in:app:)`), read from
    /// the App Store Server API's Get Transaction History: the chain then ends on the ledger as in-order delivery
    /// leaves it (its first transaction's `grant`, each renewal's `extend`, each transaction's revenue), in the one
    /// apply of what arrived.
    ///
    /// The history is asked from the chain's original purchase date up to the arrived transaction's purchase date,
    /// in the chain's subscription group, every page, through `AppleGateway.callServerAPI` (circuit breaker, call
    /// slots, `subledger_apple_calls` metrics); the transactions of other chains in Apple's answer are left out.
    /// Apple failing (or the breaker refusing the call) is `apple_unavailable`, and Apple refusing SubLedger's key
    /// `apple_configuration_error`: both transient, so the stored notification or submission is tried again later and
    /// never applied without its chain's beginning. Any other refusal leaves the input as it arrived (logged).
    func withEarlierTransactions(
        _ input: LedgerInput, of contacts: [(key: ChainKey, arrived: Transaction)], app: StoredApp
    ) async throws -> LedgerInput {
        var input = input
        for contact in contacts {
            let earlier = try await earlierTransactions(of: contact.key, before: contact.arrived, app: app)
            let room = LedgerInput.maximumItems - input.transactions.count - input.renewalInfo.count
            guard earlier.count <= room else {
                // The first transaction and the newest ones: the chain still starts with its grant.
                logger.warning(
                    "chain has more earlier transactions than one input holds; its oldest renewals are left out",
                    metadata: ["chain": "\(contact.key.chainID)", "earlier": "\(earlier.count)"])
                input.transactions += earlier.prefix(1) + earlier.suffix(max(0, room - 1))
                continue
            }
            input.transactions += earlier
        }
        return input
    }

    /// The transactions of `key` Apple's history holds before `arrived` (oldest first).
    private func earlierTransactions(of key: ChainKey, before arrived: Transaction, app: StoredApp) async throws
        -> [Transaction]
    {
        let configured: AppStoreServerAPIClient?
        do {
            configured = try apple.serverAPIClient(for: app, environment: key.environment)
        } catch let error as AppleGatewayError {
            throw IngestionError(error)
        }
        guard let client = configured else { return [] }
        let request = TransactionHistoryRequest(
            startDate: arrived.originalPurchaseDate?.millisecondsSince1970,
            endDate: arrived.purchaseDate.millisecondsSince1970 + 1, sort: .ascending,
            subscriptionGroupIdentifiers: arrived.subscriptionGroupID.map { [$0] } ?? [])
        var history: [JWSTransactionDecodedPayload] = []
        var revision: String?
        do throws(ServerAPICallFailure) {
            for _ in 0..<client.configuration.maximumPages {
                let page = try await apple.callServerAPI(.transactionHistory) {
                    () async throws(AppStoreServerAPIError) in
                    try await client.transactionHistory(
                        transactionID: arrived.transactionID, request: request, revision: revision)
                }
                history += page.transactions
                guard page.hasMore, let next = page.revision, next != revision else { break }
                revision = next
            }
        } catch {
            switch error {
            case .notCalled(let wait):
                throw IngestionError(
                    .appleUnavailable, "Apple is not called now; the chain's history will be read when it is",
                    retryAfter: wait)
            case .apple(let refusal) where refusal.isRetryable:
                throw IngestionError(
                    .appleUnavailable,
                    "Apple is unavailable; the chain's earlier transactions will be read when Apple answers",
                    retryAfter: .seconds(Self.retryAfterSeconds))
            case .apple(let refusal) where refusal.code == .unauthorized || refusal.code == .invalidConfiguration:
                throw IngestionError(
                    .appleConfigurationError,
                    "Apple refused SubLedger's App Store Server API key for this app; the chain's history will be "
                        + "read once it is fixed", retryAfter: .seconds(Self.retryAfterSeconds))
            case .apple(let refusal):
                logger.warning(
                    "Apple refused the history of a chain first heard of late; applied as it arrived",
                    metadata: ["chain": "\(key.chainID)", "error": "\(refusal.code)"])
                return []
            }
        }
        return try history.filter {
            $0.originalTransactionID == key.chainID && $0.transactionID != arrived.transactionID
        }
        .map { try $0.coreTransaction(source: .serverAPI) }
        .filter { $0.environment == key.environment && $0.purchaseDate <= arrived.purchaseDate }
        .sorted { ($0.purchaseDate, $0.transactionID) < ($1.purchaseDate, $1.transactionID) }
    }
}
