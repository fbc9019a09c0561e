import GooglePlay
import GooglePlayClients
import SubLedgerCore
import SubLedgerStore
import SubLedgerUseCases

/// Google Play's side of the obligation sender: acknowledges a subscription or a product, or consumes a consumable,
/// through the Developer API with the app's service account. Transient: 5xx, 429, timeouts, refused or missing
/// credentials and unreadable answers (which the operator can fix, well within Google's three days); Google's
/// other 4xx refusals are final.
public struct GooglePlayObligationSender: ObligationSending {
    let gateway: GooglePlayGateway

    public init(gateway: GooglePlayGateway) {
        self.gateway = gateway
    }

    public var store: Store { .googlePlay }

    public func send(_ due: StoreObligationStore.Due, app: StoredApp, now: Instant) async -> ObligationAttempt {
        let obligation = due.obligation
        guard case .googlePlay(let purchaseToken, let productID) = obligation.payload else {
            return .refused(detail: "wrong_store: \(obligation.kind.rawValue) is not a Google Play call")
        }
        let client: GooglePlayDeveloperAPI
        let packageName: String
        do {
            (client, packageName) = try await gateway.client(for: app)
        } catch {
            return .transient(detail: "\(error)")
        }
        do {
            switch obligation.kind {
            case .acknowledgeSubscription:
                try await client.acknowledgeSubscription(
                    packageName: packageName, subscriptionId: productID, token: purchaseToken)
            case .acknowledgeProduct:
                try await client.acknowledgeProduct(
                    packageName: packageName, productId: productID, token: purchaseToken)
            case .consumeProduct:
                try await client.consumeProduct(packageName: packageName, productId: productID, token: purchaseToken)
            case .setAppAccountToken, .finishTransaction, .sendConsumptionInformation, .reportExternalPurchase:
                return .refused(detail: "wrong_store: \(obligation.kind.rawValue) is not a Google Play call")
            }
            return .sent()
        } catch {
            switch error.code {
            case _ where error.isRetryable,
                .unauthorized, .permissionDenied, .invalidGrant, .tokenExchangeRefused, .malformedResponse:
                var after: Instant?
                if let seconds = error.retryAfterSeconds, seconds > 0 {
                    after = now.adding(milliseconds: min(seconds, 86_400) * 1000)
                }
                return .transient(httpStatus: error.httpStatus, detail: "\(error)", notBefore: after)
            default:
                return .refused(httpStatus: error.httpStatus, detail: "\(error) \(error.message ?? "")")
            }
        }
    }
}
