import AppStore
import AppStoreClients
import SubLedgerCore
import SubLedgerStore

/// The App Store's side of the obligation sender: Set App Account Token and Finish Transaction through the App Store
/// Server API, with the app's key. Transient: 5xx, 429, timeouts, Apple not called now (the gateway's breaker), a
/// missing or unusable API key (which the operator can still add); Apple's 4xx refusals are final.
public struct AppStoreObligationSender: ObligationSending {
    let apple: AppleGateway
    /// Where an account's app account token is found or made.
    let tokens: AccountTokenStore

    public init(apple: AppleGateway, tokens: AccountTokenStore) {
        self.apple = apple
        self.tokens = tokens
    }

    public var store: Store { .appStore }

    public func send(_ due: StoreObligationStore.Due, app: StoredApp, now: Instant) async -> ObligationAttempt {
        let obligation = due.obligation
        let client: AppStoreServerAPIClient
        do {
            guard let configured = try apple.serverAPIClient(for: app, environment: obligation.chain.environment)
            else {
                return .transient(detail: "no_server_api_key: the app has no App Store Server API key")
            }
            client = configured
        } catch {
            return .transient(detail: "server_api_key: \(error)")
        }
        var token: String?
        do {
            switch obligation.kind {
            case .setAppAccountToken:
                let accountToken = try await tokens.token(for: obligation.account, appID: due.appID)
                token = accountToken
                try await apple.callServerAPI(.setAppAccountToken) { () async throws(AppStoreServerAPIError) in
                    try await client.setAppAccountToken(
                        originalTransactionID: obligation.chain.originalTransactionID, appAccountToken: accountToken)
                }
            case .finishTransaction:
                try await apple.callServerAPI(.finishTransaction) { () async throws(AppStoreServerAPIError) in
                    try await client.finishTransaction(transactionID: obligation.transactionID)
                }
            case .acknowledgeSubscription, .acknowledgeProduct, .consumeProduct:
                return .refused(detail: "wrong_store: \(obligation.kind.rawValue) is not an App Store call")
            }
            return .sent(appAccountToken: token)
        } catch let error as ServerAPICallFailure {
            switch error {
            case .notCalled(let wait):
                return .transient(
                    detail: "apple_unavailable: Apple is not called now; not sent",
                    notBefore: now.adding(
                        milliseconds: wait.components.seconds * 1000
                            + wait.components.attoseconds / 1_000_000_000_000_000))
            case .apple(let error):
                if error.isRetryable {
                    return .transient(
                        httpStatus: error.httpStatus, storeErrorCode: error.apiErrorCode, detail: "\(error)",
                        notBefore: error.retryAfter)
                }
                return .refused(httpStatus: error.httpStatus, storeErrorCode: error.apiErrorCode, detail: "\(error)")
            }
        } catch {
            return .transient(detail: "database: \(error)")
        }
    }
}
