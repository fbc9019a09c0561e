/// Which store artifact a normalized value was read from; kept with every stored transaction for audit.
///
/// The App Store has five sources; every other store has one, its API (`storeAPI`), read whole after a push, a
/// submission, the reconciliation or the renewal job: a store added to `Store` has its source without a change here.
public enum TransactionSource: Hashable, Sendable {
    /// A legacy `verifyReceipt` answer (`in_app` / `latest_receipt_info`).
    case verifyReceipt
    /// A StoreKit 2 JWS signed transaction submitted by an app.
    case signedTransaction
    /// An App Store Server Notification, version 2.
    case notificationV2
    /// A legacy App Store Server Notification, version 1 (`unified_receipt`).
    case notificationV1
    /// The App Store Server API (transaction history, subscription statuses, transaction info).
    case serverAPI
    /// Another store's API (never the App Store's: that is `serverAPI`), stored as `<store>_api`: the Google Play Developer API (`purchases.subscriptionsv2`,
    /// `purchases.productsv2`); the Stripe API (a subscription and its paid invoices, their payments, refunds and
    /// disputes).
    case storeAPI(Store)

    /// The Google Play Developer API.
    public static let googlePlayAPI = TransactionSource.storeAPI(.googlePlay)
    /// The Stripe API.
    public static let stripeAPI = TransactionSource.storeAPI(.stripe)

    /// The store whose artifact this is.
    public var store: Store {
        switch self {
        case .verifyReceipt, .signedTransaction, .notificationV2, .notificationV1, .serverAPI: .appStore
        case .storeAPI(let store): store
        }
    }

    /// Whether a version from this source without a revocation date says the transaction is not revoked. Apple's
    /// sources state a refund on the transaction itself, so a clean version observed after a refund reverses it.
    /// A store's API states one as its store does (`Store.statesRevocationOnEveryRead`).
    public var statesRevocation: Bool {
        switch self {
        case .verifyReceipt, .signedTransaction, .notificationV2, .notificationV1, .serverAPI: true
        case .storeAPI(let store): store.statesRevocationOnEveryRead
        }
    }

    /// The sources whose sales state their own fee, tax and partial refunds (`Transaction.processingFee`, `tax`,
    /// `partialRefunds`): those of the stores that take no commission (`Store.takesCommission`). The reports read
    /// these sales' money as stated.
    public static var statingFees: [TransactionSource] {
        allCases.filter { !$0.store.takesCommission }
    }
}

extension TransactionSource: RawRepresentable, CaseIterable, Codable {
    public static let allCases: [TransactionSource] =
        [.verifyReceipt, .signedTransaction, .notificationV2, .notificationV1, .serverAPI]
        + Store.allCases.filter { $0 != .appStore }.map { .storeAPI($0) }

    /// As stored (`transactions.source`): `verify_receipt`, `signed_transaction`, `notification_v2`,
    /// `notification_v1`, `server_api`, or a store's `<store>_api` (`google_play_api`, `stripe_api`).
    public var rawValue: String {
        switch self {
        case .verifyReceipt: "verify_receipt"
        case .signedTransaction: "signed_transaction"
        case .notificationV2: "notification_v2"
        case .notificationV1: "notification_v1"
        case .serverAPI: "server_api"
        case .storeAPI(let store): store.rawValue + "_api"
        }
    }

    public init?(rawValue: String) {
        switch rawValue {
        case "verify_receipt": self = .verifyReceipt
        case "signed_transaction": self = .signedTransaction
        case "notification_v2": self = .notificationV2
        case "notification_v1": self = .notificationV1
        case "server_api": self = .serverAPI
        default:
            guard rawValue.hasSuffix("_api"), let store = Store(rawValue: String(rawValue.dropLast(4))),
                store != .appStore
            else { return nil }
            self = .storeAPI(store)
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let raw = try container.decode(String.self)
        guard let source = Self(rawValue: raw) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "unknown transaction source \(raw)")
        }
        self = source
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
