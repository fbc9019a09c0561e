/// Which store artifact a normalized value was read from; kept with every stored transaction for audit.
public enum TransactionSource: String, Hashable, Sendable, Codable, CaseIterable {
    /// A legacy `verifyReceipt` answer (`in_app` / `latest_receipt_info`).
    case verifyReceipt = "verify_receipt"
    /// A StoreKit 2 JWS signed transaction submitted by an app.
    case signedTransaction = "signed_transaction"
    /// An App Store Server Notification, version 2.
    case notificationV2 = "notification_v2"
    /// A legacy App Store Server Notification, version 1 (`unified_receipt`).
    case notificationV1 = "notification_v1"
    /// The App Store Server API (transaction history, subscription statuses, transaction info).
    case serverAPI = "server_api"
    /// The Google Play Developer API (`purchases.subscriptionsv2`, `purchases.productsv2`), read after a
    /// purchase was submitted, a real-time developer notification arrived, or the poller asked.
    case googlePlayAPI = "google_play_api"
    /// The Stripe API (a subscription and its paid invoices, their payments, refunds and disputes), read after a
    /// webhook arrived, the reconciliation found a missed event, or the poller asked.
    case stripeAPI = "stripe_api"

    /// The store whose artifact this is.
    public var store: Store {
        switch self {
        case .verifyReceipt, .signedTransaction, .notificationV2, .notificationV1, .serverAPI: .appStore
        case .googlePlayAPI: .googlePlay
        case .stripeAPI: .stripe
        }
    }

    /// Whether a version from this source without a revocation date says the transaction is not revoked. Apple's
    /// sources state a refund on the transaction itself, so a clean version observed after a refund reverses it.
    /// Google's purchase resources never state one (voids are listed apart, in voided purchases, and Google never
    /// takes one back), so their clean versions say nothing about revocation. Stripe's are read whole each time (the
    /// invoice's payment with its refunds and disputes), so a clean version says a lost dispute was not lost after all.
    public var statesRevocation: Bool {
        switch self {
        case .verifyReceipt, .signedTransaction, .notificationV2, .notificationV1, .serverAPI: true
        case .googlePlayAPI: false
        case .stripeAPI: true
        }
    }
}
