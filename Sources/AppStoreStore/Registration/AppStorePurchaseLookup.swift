import AppStore
import AppStoreClients
import SubLedgerCore
import SubLedgerStore
import SubLedgerUseCases

/// Support's lookups with Apple: Look Up Order ID and Get Transaction Info through the App Store Server API, called
/// through the gateway's circuit breaker and measured like every call to Apple; a chain applied from them is brought
/// up to date with Get All Subscription Statuses, as the renewal job would.
struct AppStorePurchaseLookup: StorePurchaseLookup {
    let ingestion: Ingestion

    /// Metrics name of Look Up Order ID in `subledger_apple_calls_total`.
    static let orderLookupEndpoint = AppleCallMetrics.Endpoint("order_lookup")

    /// The environments Apple's Server API serves for `app`, production first (as Apple recommends).
    func environments(of app: StoredApp) throws(SupportError) -> [StoreEnvironment] {
        guard app.serverAPI != nil else {
            throw SupportError(
                .serverAPINotConfigured,
                "\(app.bundleID) has no App Store Server API key in the catalog; Apple cannot be asked")
        }
        return [.production, .sandbox].filter(app.definition.environments.contains)
    }

    func order(_ orderID: String, app: StoredApp, environment: StoreEnvironment) async throws -> [Transaction] {
        let client = try serverAPIClient(app, environment)
        let lookup = try await askApple(Self.orderLookupEndpoint) { try await client.lookUpOrder(orderID: orderID) }
        // Status 1 is Apple's "invalid order id" for this environment.
        guard lookup.status == 0 else { return [] }
        return try lookup.transactions.map(Self.coreTransaction)
    }

    func transaction(_ id: String, app: StoredApp, environment: StoreEnvironment) async throws -> Transaction {
        let client = try serverAPIClient(app, environment)
        let payload = try await askApple(.transactionInfo) { try await client.transactionInfo(transactionID: id) }
        return try Self.coreTransaction(payload)
    }

    func refresh(_ key: ChainKey, app: StoredApp) async throws {
        _ = try await ingestion.pollServerAPI(key, app: app)
    }

    private func serverAPIClient(_ app: StoredApp, _ environment: StoreEnvironment) throws -> AppStoreServerAPIClient {
        let client: AppStoreServerAPIClient?
        do {
            client = try ingestion.apple.serverAPIClient(for: app, environment: environment)
        } catch {
            throw SupportError(
                .serverAPINotConfigured, "the Server API client of \(app.bundleID) cannot be built: \(error)")
        }
        guard let client else {
            throw SupportError(
                .serverAPINotConfigured, "\(app.bundleID) has no App Store Server API key in the catalog")
        }
        return client
    }

    /// Calls Apple through the circuit breaker, with metrics, turning its failures into `SupportError`s.
    private func askApple<T: Sendable>(
        _ endpoint: AppleCallMetrics.Endpoint, _ call: () async throws -> T
    ) async throws -> T {
        let apple = ingestion.apple
        do {
            try apple.admitCall()
        } catch {
            let wait: Duration =
                if case .circuitOpen(let retryAfter) = error { retryAfter } else {
                    .seconds(Ingestion.retryAfterSeconds)
                }
            throw SupportError(.appleUnavailable, "Apple keeps failing; try again later", retryAfter: wait)
        }
        do {
            let result = try await AppleCallMetrics.measure(
                endpoint,
                classifyError: { ($0 as? AppStoreServerAPIError)?.isRetryable == true ? .retryable : .rejected }
            ) { try await call() }
            apple.breaker.recordSuccess()
            return result
        } catch let error as AppStoreServerAPIError {
            if error.isRetryable {
                apple.breaker.recordFailure()
                let wait = error.retryAfter.map {
                    max(1, ($0.millisecondsSince1970 - ingestion.now().millisecondsSince1970) / 1000)
                }
                throw SupportError(
                    .appleUnavailable, "Apple is unavailable (\(error.code)); try again later",
                    retryAfter: .seconds(wait ?? Int64(Ingestion.retryAfterSeconds)))
            }
            apple.breaker.recordSuccess()
            // 4000006 (invalid transaction id) from Apple means no transaction can have that id: not found either.
            if error.code == .transactionIDNotFound || error.httpStatus == 404 || error.apiErrorCode == 4_000_006 {
                throw SupportError(.transactionNotFound, "Apple knows no such transaction in this environment")
            }
            throw SupportError(.appleRefused, "Apple refused the request: \(error)")
        }
    }

    private static func coreTransaction(_ payload: JWSTransactionDecodedPayload) throws -> Transaction {
        do {
            return try payload.coreTransaction(source: .serverAPI)
        } catch {
            throw SupportError(.appleRefused, "Apple returned a transaction that cannot be applied: \(error)")
        }
    }
}
