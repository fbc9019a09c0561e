/// How a chain's current state is read again from the store that sold it (the renewal job's check), stored as
/// `chains.refresh_via`.
public enum ChainRefreshRoute: String, Sendable, Hashable, CaseIterable {
    /// The App Store Server API (Get All Subscription Statuses): a chain a StoreKit 2 source carried.
    case appStoreServerAPI = "server_api"
    /// verifyReceipt on the chain's latest stored receipt: a chain only receipts and V1 notifications carried.
    case appStoreReceipt = "verify_receipt"
    /// The Google Play Developer API, on the lineage's newest token.
    case googlePlay = "google_play"
    /// The Stripe API, on the chain's subscription.
    case stripe = "stripe"

    /// The store the route reads.
    public var store: Store {
        switch self {
        case .appStoreServerAPI, .appStoreReceipt: .appStore
        case .googlePlay: .googlePlay
        case .stripe: .stripe
        }
    }

    /// The route for `chain`: its store's; for the App Store, the Server API once a StoreKit 2 source carried the
    /// chain, else verifyReceipt.
    public init(of chain: ChainSnapshot) {
        if chain.transactions.contains(where: { $0.transaction.store == .googlePlay }) {
            self = .googlePlay
        } else if chain.transactions.contains(where: { $0.transaction.store == .stripe }) {
            self = .stripe
        } else if chain.transactions.contains(where: {
            $0.transaction.source != .verifyReceipt && $0.transaction.source != .notificationV1
        }) {
            self = .appStoreServerAPI
        } else {
            self = .appStoreReceipt
        }
    }
}
