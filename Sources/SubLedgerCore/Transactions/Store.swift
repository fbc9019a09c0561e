/// The store that sold a transaction. One app of the catalog may sell in several: its products say which store
/// sells each (`Product.store`), and a chain belongs to the store of its transactions.
public enum Store: String, Hashable, Sendable, Codable, CaseIterable {
    /// Apple's App Store (receipts, StoreKit 2, Server Notifications, the App Store Server API).
    case appStore = "app_store"
    /// Google Play Billing (the Google Play Developer API and real-time developer notifications).
    case googlePlay = "google_play"
    /// Stripe Billing: the app's own web checkout (Checkout Sessions, subscriptions and their paid invoices, read
    /// back from the Stripe API after its signed webhooks).
    case stripe = "stripe"
}

extension Store {
    /// The store's name as an operator reads it on a page or in a report: "App Store", "Google Play", "Stripe".
    public var displayName: String {
        switch self {
        case .appStore: "App Store"
        case .googlePlay: "Google Play"
        case .stripe: "Stripe"
        }
    }
}
