import AppStore
import AppStoreClients
import SubLedgerCore
import SubLedgerStore
import SubLedgerUseCases

/// The App Store's side of the obligation sender: Set App Account Token, Finish Transaction, the answers to
/// consumption requests (`ConsumptionAnswerSender`) and External Purchase reports (`ExternalPurchaseReportSender`)
/// through the App Store Server API, with the app's key. Transient: 5xx, 429, timeouts, Apple not called now (the
/// gateway's breaker), a missing or unusable API key (which the operator can still add); Apple's 4xx refusals are
/// final.
public struct AppStoreObligationSender: ObligationSending {
    let apple: AppleGateway
    /// Where an account's app account token is found or made.
    let tokens: AccountTokenStore
    /// Answers consumption requests.
    let consumption: ConsumptionAnswerSender
    /// Sends External Purchase reports.
    let externalPurchases: ExternalPurchaseReportSender

    public init(
        apple: AppleGateway, tokens: AccountTokenStore, consumption: ConsumptionAnswerSender,
        externalPurchases: ExternalPurchaseReportSender
    ) {
        self.apple = apple
        self.tokens = tokens
        self.consumption = consumption
        self.externalPurchases = externalPurchases
    }

    public var store: Store { .appStore }

    public func send(_ due: StoreObligationStore.Due, app: StoredApp, now: Instant) async -> ObligationAttempt {
        let obligation = due.obligation
        // A consumption answer decides first (and records its own audit trail): it may owe Apple nothing.
        if case .consumptionRequest(let requestID) = obligation.payload {
            return await consumption.send(requestID: requestID, app: app, now: now)
        }
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
        if case .externalPurchaseReport(let reportID) = obligation.payload {
            return await externalPurchases.send(reportID: reportID, app: app, client: client, now: now)
        }
        var token: String?
        do {
            switch obligation.kind {
            case .setAppAccountToken:
                guard let account = obligation.account else {
                    return .refused(detail: "no_account: a Set App Account Token names no account")
                }
                let accountToken = try await tokens.token(for: account, appID: due.appID)
                token = accountToken
                try await apple.callServerAPI(.setAppAccountToken) { () async throws(AppStoreServerAPIError) in
                    try await client.setAppAccountToken(
                        originalTransactionID: obligation.chain.chainID, appAccountToken: accountToken)
                }
            case .finishTransaction:
                try await apple.callServerAPI(.finishTransaction) { () async throws(AppStoreServerAPIError) in
                    try await client.finishTransaction(transactionID: obligation.transactionID)
                }
            case .sendConsumptionInformation:
                return .refused(detail: "no_request: a consumption answer names no request")
            case .reportExternalPurchase:
                return .refused(detail: "no_report: an external purchase report obligation names no report")
            case .acknowledgeSubscription, .acknowledgeProduct, .consumeProduct:
                return .refused(detail: "wrong_store: \(obligation.kind.rawValue) is not an App Store call")
            }
            return .sent(appAccountToken: token)
        } catch let error as ServerAPICallFailure {
            return Self.attempt(error, now: now)
        } catch {
            return .transient(detail: "database: \(error)")
        }
    }

    /// What a call to the App Store Server API that failed makes of an attempt: transient when Apple was not called
    /// now or its failure may pass, else refused.
    static func attempt(_ failure: ServerAPICallFailure, now: Instant) -> ObligationAttempt {
        switch failure {
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
    }
}
