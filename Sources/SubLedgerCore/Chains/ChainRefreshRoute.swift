/// How a chain's current state is read again from the store that sold it (the renewal job's check), stored as
/// `chains.refresh_via`.
public enum ChainRefreshRoute: Sendable, Hashable {
    /// The App Store Server API (Get All Subscription Statuses): a chain a StoreKit 2 source carried.
    case appStoreServerAPI
    /// verifyReceipt on the chain's latest stored receipt: a chain only receipts and V1 notifications carried.
    case appStoreReceipt
    /// Another store's API (never the App Store's), stored as the store's name: the Google Play Developer API on the
    /// lineage's newest token; the Stripe API on the chain's subscription.
    case storeAPI(Store)

    /// The Google Play Developer API.
    public static let googlePlay = ChainRefreshRoute.storeAPI(.googlePlay)
    /// The Stripe API.
    public static let stripe = ChainRefreshRoute.storeAPI(.stripe)

    /// The store the route reads.
    public var store: Store {
        switch self {
        case .appStoreServerAPI, .appStoreReceipt: .appStore
        case .storeAPI(let store): store
        }
    }

    /// The route for `chain`: its store's; for the App Store, the Server API once a StoreKit 2 source carried the
    /// chain, else verifyReceipt.
    public init(of chain: ChainSnapshot) {
        if let store = chain.transactions.first(where: { $0.transaction.store != .appStore })?.transaction.store {
            self = .storeAPI(store)
        } else if chain.transactions.contains(where: {
            $0.transaction.source != .verifyReceipt && $0.transaction.source != .notificationV1
        }) {
            self = .appStoreServerAPI
        } else {
            self = .appStoreReceipt
        }
    }
}

extension ChainRefreshRoute: RawRepresentable, CaseIterable {
    public static let allCases: [ChainRefreshRoute] =
        [.appStoreServerAPI, .appStoreReceipt] + Store.allCases.filter { $0 != .appStore }.map { .storeAPI($0) }

    /// As stored: `server_api`, `verify_receipt`, or the store's name (`google_play`, `stripe`).
    public var rawValue: String {
        switch self {
        case .appStoreServerAPI: "server_api"
        case .appStoreReceipt: "verify_receipt"
        case .storeAPI(let store): store.rawValue
        }
    }

    public init?(rawValue: String) {
        switch rawValue {
        case "server_api": self = .appStoreServerAPI
        case "verify_receipt": self = .appStoreReceipt
        default:
            guard let store = Store(rawValue: rawValue), store != .appStore else { return nil }
            self = .storeAPI(store)
        }
    }
}
